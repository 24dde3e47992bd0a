/**
 * `svc network requests|request` and `svc har start|stop` on a real Chrome, in the host and as a full process: every
 * request of network.html (JSON, a 404, a refused port, a POST) recorded; `--filter`, `--body` (binary as base64),
 * `--clear`; a valid HAR 1.2 of what loaded between start and stop; secrets masked everywhere; and the bound (the
 * newest requests kept).
 */
import { mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { harProblems } from "../support/har-check.js";
import { ROOT, hostAndFullModes, json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);
const MODES = hostAndFullModes(() => world.sb.env);

interface Row {
  id: string;
  method: string;
  status: number | null;
  state: string;
  type: string;
  url: string;
  duration: number | null;
  failure?: string;
  redirectedTo?: string;
  tab: number | null;
}

const DATA = JSON.parse(readFileSync(join(ROOT, "fixtures", "pages", "fetch", "data.json"), "utf8")) as unknown;

/** A loopback port nothing listens on (a request to it is refused). */
let refused = "";
beforeAll(async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  refused = `http://127.0.0.1:${port}/refused`;
});

const page = (query = "") => world.server.url(`network.html?refused=${encodeURIComponent(refused)}${query}`);
const waitDone = () => ok("wait", "--fn", "document.getElementById('result').textContent.endsWith('done')", "--timeout", "30000");

/** The listing once `check` holds (the host writes Chrome's events as they come): asked again, 10 s at most. */
async function rowsWhen(run: (args: string[]) => Promise<string>, check: (rows: Row[]) => boolean, ...flags: string[]): Promise<Row[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = json<{ requests: Row[] }>(await run(["--json", "network", "requests", ...flags])).requests;
    if (check(rows) || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(MODES)("svc network requests / request $mode", ({ mode, run }) => {
  const hostOk = async (args: string[]) => {
    const r = await run(args, { key: args.includes("network") || args.includes("har") });
    expect(r.stderr, args.join(" ")).toBe("");
    expect(r.code, args.join(" ")).toBe(0);
    return r.stdout;
  };
  const tag = mode.includes("host") ? "host" : "full";

  it("lists the page's requests with status, type and duration; --filter; request ID --body is the JSON the page fetched", async () => {
    await hostOk(["network", "requests", "--clear"]);
    await ok("goto", page(`&mode=${tag}`));
    await waitDone();
    const done = (rows: Row[]) => rows.some((r) => r.url.endsWith("/echo-post?x=1") && r.state !== "pending") && rows.some((r) => r.url === refused && r.state === "failed");
    const rows = await rowsWhen(hostOk, done);
    const doc = rows.find((r) => r.url === page(`&mode=${tag}`));
    expect(doc).toMatchObject({ method: "GET", status: 200, state: "finished", type: "Document", tab: 1 });
    const data = rows.find((r) => r.url.endsWith("fetch/data.json?from=network"));
    expect(data).toMatchObject({ method: "GET", status: 200, state: "finished", type: "Fetch", tab: 1 });
    expect(data!.id).toMatch(/^r\d+$/);
    expect(data!.duration).toBeGreaterThanOrEqual(0);
    expect(rows.find((r) => r.url.endsWith("network-missing.json"))).toMatchObject({ status: 404, type: "Fetch", state: "finished" });
    expect(rows.find((r) => r.url === refused)).toMatchObject({ state: "failed", status: null, failure: "net::ERR_CONNECTION_REFUSED" });
    expect(rows.find((r) => r.url.endsWith("/echo-post?x=1"))).toMatchObject({ method: "POST", status: 405 });

    // One line per request: id, method, status, type, URL, duration.
    const lines = (await hostOk(["network", "requests"])).trimEnd().split("\n");
    expect(lines.length).toBe(rows.length);
    expect(lines.find((l) => l.includes("data.json?from=network"))).toMatch(new RegExp(`^${data!.id} +GET +200 +Fetch +http://\\S+/fetch/data\\.json\\?from=network +\\d+ ms$`));
    expect(lines.find((l) => l.includes(refused))).toMatch(/ failed +Fetch +\S+ +\d+ ms +net::ERR_CONNECTION_REFUSED$/);

    const filtered = json<{ requests: Row[] }>(await hostOk(["--json", "network", "requests", "--filter", "DATA.JSON"])).requests;
    expect(filtered.map((r) => r.id)).toEqual([data!.id]);
    expect(await hostOk(["network", "requests", "--filter", "no-such-thing"])).toBe('no requests whose URL contains "no-such-thing"\n');

    const detail = json<{ request: { status: number; requestHeaders: Record<string, string>; responseHeaders: Record<string, string>; timings: Record<string, number> }; body: { text: string; bytes: number; encoding?: string } }>(
      await hostOk(["--json", "network", "request", data!.id, "--body"]),
    );
    expect(JSON.parse(detail.body.text)).toEqual(DATA);
    expect(detail.body.encoding).toBeUndefined();
    expect(detail.body.bytes).toBe(Buffer.byteLength(detail.body.text));
    expect(detail.request.status).toBe(200);
    expect(detail.request.requestHeaders.Cookie).toBe("svcnet=cookie-value");
    expect(detail.request.responseHeaders["content-type"]).toMatch(/^application\/json/);
    expect(detail.request.timings.wait).toBeGreaterThanOrEqual(0);
    const text = await hostOk(["network", "request", data!.id, "--body"]);
    expect(text).toMatch(/^r\d+ GET http:\/\/\S+\/fetch\/data\.json\?from=network\nstatus: 200 OK/);
    expect(text).toContain(`body (${detail.body.bytes} bytes):\n${detail.body.text}\n`);
  });
});

describe("svc network and svc har", () => {
  it("request ID: each hop of a redirect, unknown id, a failed request's body, a malformed id", async () => {
    await ok("eval", "fetch('/redirect?to=' + encodeURIComponent('/fetch/data.json?via=redirect')).then((r) => r.text())");
    const rows = await rowsWhen((a) => ok(...a), (r) => r.some((x) => x.url.endsWith("?via=redirect") && x.state === "finished") && r.some((x) => x.state === "failed"));
    const hop = rows.find((r) => r.url.includes("/redirect?to="))!;
    const next = rows.find((r) => r.url.endsWith("/fetch/data.json?via=redirect"))!;
    expect(hop).toMatchObject({ status: 302, state: "finished", redirectedTo: next.id });
    expect(next).toMatchObject({ status: 200, type: "Fetch" });
    expect(await fails(8, "network", "request", hop.id, "--body")).toMatch(new RegExp(`was redirected \\(to ${next.id}\\): a redirect has no body`));
    expect(JSON.parse(json<{ body: { text: string } }>(await ok("--json", "network", "request", next.id, "--body")).body.text)).toEqual(DATA);
    const failed = rows.find((r) => r.url === refused)!;
    expect(await fails(8, "network", "request", failed.id, "--body")).toMatch(/failed \(net::ERR_CONNECTION_REFUSED\): it has no body/);
    // A binary body comes as base64; one over the 10 MB bound is not kept by Chrome, and said so.
    await ok("eval", "Promise.all([fetch('fetch/image.png').then((r) => r.arrayBuffer()), fetch('/download?bytes=11000000').then((r) => r.arrayBuffer())]).then(() => 1)");
    const more = await rowsWhen((a) => ok(...a), (r) => r.some((x) => x.url.endsWith("bytes=11000000") && x.state === "finished") && r.some((x) => x.url.endsWith("image.png") && x.state === "finished"));
    const png = json<{ body: { text: string; bytes: number; encoding?: string } }>(await ok("--json", "network", "request", more.find((r) => r.url.endsWith("image.png"))!.id, "--body")).body;
    expect(png.encoding).toBe("base64");
    expect(Buffer.from(png.text, "base64")).toEqual(readFileSync(join(ROOT, "fixtures", "pages", "fetch", "image.png")));
    expect(png.bytes).toBe(statSync(join(ROOT, "fixtures", "pages", "fetch", "image.png")).size);
    expect(await fails(8, "network", "request", more.find((r) => r.url.endsWith("bytes=11000000"))!.id, "--body")).toMatch(/^svc: Chrome no longer has the body of r\d+ \(/);
    expect(await fails(2, "network", "request", "r999999")).toMatch(/^svc: no request r999999 in session \S+'s network log/);
    expect(await fails(2, "network", "request", "12")).toMatch(/request id: expected r and a number/);
  });

  it("--clear empties the log; later requests come in again", async () => {
    expect((await rowsWhen((a) => ok(...a), () => true)).length).toBeGreaterThan(0);
    expect(await ok("network", "requests", "--clear")).toMatch(/cleared$/);
    expect(await ok("network", "requests")).toBe("no requests");
    await ok("eval", "fetch('fetch/data.json?after=clear').then((r) => r.text())");
    const rows = await rowsWhen((a) => ok(...a), (r) => r.some((x) => x.url.endsWith("?after=clear") && x.state === "finished"));
    expect(rows.map((r) => r.url.replace(/^.*\//, ""))).toEqual(["data.json?after=clear"]);
  });

  it("har start / goto / har stop FILE writes a HAR 1.2 file of what loaded in between", async () => {
    const dir = join(world.sb.state, "..", "har-out");
    mkdirSync(dir, { recursive: true });
    expect(await fails(2, "har", "stop", join(dir, "none.har"))).toMatch(/no HAR is being recorded/);
    await ok("goto", world.server.url("forms.html"));
    expect(await ok("har", "start")).toMatch(/^recording a HAR/);
    expect(await fails(2, "har", "start")).toMatch(/already being recorded/);
    await ok("goto", page("&har=1"));
    await waitDone();
    await rowsWhen((a) => ok(...a), (r) => r.some((x) => x.url.endsWith("/echo-post?x=1") && x.state !== "pending"));
    // A directory is refused, and the recording goes on.
    expect(await fails(2, "har", "stop", dir)).toMatch(/it is a directory/);
    const file = join(dir, "f.har");
    expect(await ok("har", "stop", file)).toMatch(/^wrote \S+f\.har: \d+ requests, 1 page, \d+ bodies$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const har = JSON.parse(readFileSync(file, "utf8")) as {
      log: {
        creator: { name: string };
        pages: Array<{ id: string; title: string; pageTimings: { onContentLoad: number; onLoad: number } }>;
        entries: Array<{ pageref?: string; request: { method: string; url: string; cookies: unknown[]; queryString: unknown[]; postData?: { mimeType: string; text: string } }; response: { status: number; content: { text?: string; mimeType: string }; _error?: string }; timings: Record<string, number>; serverIPAddress?: string }>;
      };
    };
    expect(harProblems(har)).toEqual([]);
    expect(har.log.creator.name).toBe("svc");
    expect(har.log.pages).toHaveLength(1);
    expect(har.log.pages[0]!.title).toBe(page("&har=1"));
    expect(har.log.pages[0]!.pageTimings.onLoad).toBeGreaterThanOrEqual(0);
    const urls = har.log.entries.map((e) => e.request.url);
    // Only what loaded after `har start`: not forms.html.
    expect(urls.some((u) => u.includes("forms.html"))).toBe(false);
    expect(urls[0]).toBe(page("&har=1"));
    expect(har.log.entries.every((e) => e.pageref === har.log.pages[0]!.id)).toBe(true);
    const data = har.log.entries.find((e) => e.request.url.endsWith("fetch/data.json?from=network"))!;
    expect(data.response.status).toBe(200);
    expect(JSON.parse(data.response.content.text!)).toEqual(DATA);
    expect(data.request.cookies).toEqual([{ name: "svcnet", value: "cookie-value" }]);
    expect(data.request.queryString).toEqual([{ name: "from", value: "network" }]);
    expect(data.serverIPAddress).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(data.timings.wait).toBeGreaterThanOrEqual(0);
    expect(har.log.entries.find((e) => e.request.url.endsWith("network-missing.json"))!.response.status).toBe(404);
    expect(har.log.entries.find((e) => e.request.url === refused)!.response).toMatchObject({ status: 0, _error: "net::ERR_CONNECTION_REFUSED" });
    expect(har.log.entries.find((e) => e.request.method === "POST")!.request.postData).toEqual({ mimeType: "application/json", text: '{"posted":"svc-post-body"}' });
    // Stopped: a second stop has nothing to write.
    expect(await fails(2, "har", "stop", file)).toMatch(/no HAR is being recorded/);
  });

  it("masks the session's secrets in the log, its file, a body and the HAR", async () => {
    const secret = "Hunter2NetSecret";
    await ok("goto", world.server.url("forms.html"));
    await ok("fill", "#password", secret);
    await ok("har", "start");
    await ok("eval", `fetch('/echo-headers?t=${secret}', { headers: { 'x-token': '${secret}' } }).then((r) => r.text())`);
    const rows = await rowsWhen((a) => ok(...a), (r) => r.some((x) => x.url.includes("/echo-headers") && x.state === "finished"));
    const echo = rows.find((r) => r.url.includes("/echo-headers"))!;
    expect(echo.url).toMatch(/\/echo-headers\?t=%password(_\d+)?%$/);
    const shown = await ok("--json", "network", "request", echo.id, "--body");
    expect(shown).not.toContain(secret);
    const detail = json<{ request: { requestHeaders: Record<string, string> }; body: { text: string } }>(shown);
    expect(detail.request.requestHeaders["x-token"]).toMatch(/^%password(_\d+)?%$/);
    expect((JSON.parse(detail.body.text) as Record<string, string>)["x-token"]).toMatch(/^%password(_\d+)?%$/);
    const file = join(world.sb.state, "..", "masked.har");
    await ok("har", "stop", file);
    const har = readFileSync(file, "utf8");
    expect(har).toContain("/echo-headers?t=%password");
    expect(har).not.toContain(secret);
    const dir = join(world.sb.state, "sessions");
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".network"))) expect(readFileSync(join(dir, f), "utf8")).not.toContain(secret);
  });

  it("keeps the newest 1,000 requests of a page that makes more", async () => {
    await ok("network", "requests", "--clear");
    await ok("goto", page("&count=1100"));
    await waitDone();
    const last = (r: Row) => r.url.endsWith("data.json?n=1099");
    const rows = await rowsWhen((a) => ok(...a), (r) => r.some((x) => last(x) && x.state === "finished"));
    expect(rows).toHaveLength(1000);
    expect(rows.some(last)).toBe(true);
    expect(rows.some((r) => r.url.endsWith("data.json?n=0"))).toBe(false);
    expect(rows.some((r) => r.url.includes("network.html"))).toBe(false);
    // Oldest first, the ids in order.
    const ids = rows.map((r) => Number(r.id.slice(1)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The session's file: 0600, within its byte bound.
    const dir = join(world.sb.state, "sessions");
    const files = readdirSync(dir).filter((n) => n.endsWith(".network"));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, files[0]!)).size).toBeLessThanOrEqual(5_000_000);
  }, 120_000);
});
