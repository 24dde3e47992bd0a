/**
 * `svc console` and `svc errors` through the built `svc`, in the host and as a full process (SVC_NO_HOST=1): entries
 * recorded by the host between commands too, bounded files, `--clear`, selected tab vs `--all`, secrets masked in
 * text and on disk, and each entry listed once after `svc back` restores a page from the back/forward cache (Chrome
 * replays its messages).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, collect, hostAndFullModes, json, spawnSvc, svc, useCliWorld } from "./helpers.js";
import { closeServer } from "../support/server.js";

const world = useCliWorld({ session: true });

/** The fixture's 1-based line holding `needle` (what url:line must say). */
function lineOf(needle: string): number {
  const lines = readFileSync(join(ROOT, "fixtures", "pages", "console.html"), "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${needle} is not in console.html`);
  return i + 1;
}

/** A server that only counts the beacons the page sends once it logged (an event the test can wait on). */
let beacons: Server;
const hits = new Map<string, number>();
beforeAll(async () => {
  beacons = createServer((req, res) => {
    hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
    res.setHeader("access-control-allow-origin", "*");
    res.end("ok");
  });
  await new Promise<void>((r) => beacons.listen(0, "127.0.0.1", r));
});
afterAll(() => closeServer(beacons));

/**
 * Two pages a tab may keep in its back/forward cache (the fixture server's answers are no-store, which keeps
 * them out): `/logs.html?tag=T` logs two messages and throws, and says in its title when it was restored.
 */
let cacheable: Server;
beforeAll(async () => {
  cacheable = createServer((req, res) => {
    const tag = new URL(req.url ?? "/", "http://x").searchParams.get("tag") ?? "";
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (!req.url?.startsWith("/logs.html")) return res.end("<!doctype html><title>Other</title><p>other</p>");
    res.end(`<!doctype html><title>Logs</title><script>
      console.log("svc-back-one-${tag}"); console.info("svc-back-two-${tag}");
      setTimeout(() => { throw new Error("svc-back-error-${tag}"); }, 0);
      addEventListener("pageshow", (e) => { if (e.persisted) document.title = "Restored"; });
    </script>`);
  });
  await new Promise<void>((r) => cacheable.listen(0, "127.0.0.1", r));
});
afterAll(() => closeServer(cacheable));
const cacheableUrl = (path: string) => `http://127.0.0.1:${(cacheable.address() as { port: number }).port}${path}`;
const beaconUrl = (name: string) => `http://127.0.0.1:${(beacons.address() as { port: number }).port}/${name}`;

async function beaconed(name: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!hits.has(`/${name}`)) {
    if (Date.now() > deadline) throw new Error(`the page never sent beacon ${name}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface ConsoleRow {
  at: string;
  level: string;
  text: string;
  url?: string;
  line?: number;
  tab: number | null;
}
interface ErrorRow {
  kind: string;
  message: string;
  stack: string[];
  url?: string;
  line?: number;
  tab: number | null;
}

const MODES = hostAndFullModes(() => world.sb.env);

describe.each(MODES)("svc console / svc errors $mode", ({ mode, run }) => {
  const ok = async (...args: string[]) => {
    // The commands under test must be the host's in the host mode; the others may be run either way.
    const r = await run(args, { key: ["console", "errors", "pdf", "screenshot"].includes(args.find((a) => !a.startsWith("-")) ?? "") });
    expect(r.stderr, args.join(" ")).toBe("");
    expect(r.code, args.join(" ")).toBe(0);
    return r.stdout;
  };
  const consoleRows = async (...flags: string[]) => json<{ console: ConsoleRow[]; tab: number | "all" }>(await ok("--json", "console", ...flags));
  const errorRows = async (...flags: string[]) => json<{ errors: ErrorRow[] }>(await ok("--json", "errors", ...flags));
  const tag = mode.includes("host") ? "hosted" : "full";
  /**
   * The rows once `check` holds: a full process reads the host's files, which it writes within 50 ms of a
   * message (the host itself writes what it holds before it runs a command), so it may ask twice.
   */
  const rowsWhen = async <T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const v = await read();
      if (check(v) || Date.now() > deadline) return v;
      if (tag === "hosted") return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const texts = (rows: ConsoleRow[]) => rows.map((r) => r.text);

  it("lists what the page logged at load and after the command ended, one line each, with url:line and tab", async () => {
    await ok("console", "--clear");
    await ok("errors", "--clear");
    const beacon = `timer-${tag}`;
    const page = world.server.url(`console.html?after=1500&beacon=${encodeURIComponent(beaconUrl(beacon))}`);
    await ok("goto", page);
    // Logged 1.5 s after load, when no command is attached to the page: only the host sees it.
    await beaconed(beacon);
    const { console: rows, tab } = await rowsWhen(() => consoleRows(), (d) => texts(d.console).includes("svc-timer-marker"));
    expect(tab).toBe(1);
    const load = rows.find((r) => r.text.startsWith("svc-load-marker"));
    expect(load).toMatchObject({ level: "log", text: 'svc-load-marker text 42 {a: 1, b: "two"}', url: page, line: lineOf("svc-load-marker"), tab: 1 });
    expect(Date.parse(load!.at)).toBeGreaterThan(Date.now() - 120_000);
    expect(rows.find((r) => r.text === "svc-warn-marker")).toMatchObject({ level: "warn", line: lineOf("svc-warn-marker") });
    // --level: only that level's messages, as the MCP tool's level.
    expect((await consoleRows("--level", "warn")).console.map((r) => r.text)).toEqual(["svc-warn-marker"]);
    expect(await run(["console", "--level", "loud"])).toMatchObject({ code: 2 });
    expect(rows.find((r) => r.text === "svc-timer-marker")).toMatchObject({ level: "error", url: page, line: lineOf('console.error("svc-timer-marker")'), tab: 1 });

    const text = (await ok("console")).trimEnd().split("\n");
    expect(text.length).toBe(rows.length);
    expect(text.find((l) => l.includes("svc-timer-marker"))).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z tab 1 error svc-timer-marker \\(.+console\\.html.*:${lineOf('console.error("svc-timer-marker")')}\\)$`));

    const { errors } = await errorRows();
    expect(errors.find((e) => e.kind === "exception")).toMatchObject({ message: "Error: svc-uncaught-marker", url: page, line: lineOf("throw new Error"), tab: 1 });
    expect(errors.find((e) => e.kind === "exception")!.stack[0]).toMatch(/^thrower \(.+console\.html.*:\d+:\d+\)$/);
    expect(errors.find((e) => e.kind === "rejection")).toMatchObject({ message: "Error: svc-rejection-marker", line: lineOf("svc-rejection-marker") });
    expect(await ok("errors")).toMatch(/^\S+ tab 1 uncaught: Error: svc-uncaught-marker at thrower \(/m);
  });

  it("--clear empties the buffer; later entries come in again", async () => {
    expect((await consoleRows()).console.length).toBeGreaterThan(0);
    expect((await ok("console", "--clear")).trimEnd()).toMatch(/cleared$/);
    expect((await consoleRows()).console).toEqual([]);
    expect(await ok("console")).toBe("no console messages in the selected tab (--all: every tab)\n");
    await ok("eval", `console.log("svc-after-clear-${tag}"), 1`);
    expect(texts((await rowsWhen(() => consoleRows(), (d) => d.console.length > 0)).console)).toContain(`svc-after-clear-${tag}`);
    await ok("errors", "--clear");
    expect((await errorRows()).errors).toEqual([]);
  });

  it("lists the selected tab's entries, --all every tab's", async () => {
    await ok("console", "--clear");
    await ok("eval", `console.log("svc-tab1-${tag}"), 1`);
    // Tab numbers are never reused: the other mode's tab 2 was closed.
    const opened = json<{ selected: number }>(await ok("--json", "tabs", "new", world.server.url("console.html"))).selected;
    expect(opened).toBeGreaterThan(1);
    const selected = await rowsWhen(() => consoleRows(), (d) => texts(d.console).includes("svc-warn-marker"));
    expect(selected.tab).toBe(opened);
    expect(selected.console.map((r) => r.text)).toContain("svc-load-marker text 42 {a: 1, b: \"two\"}");
    expect(selected.console.map((r) => r.text)).not.toContain(`svc-tab1-${tag}`);
    const all = await consoleRows("--all");
    expect(all.tab).toBe("all");
    expect(all.console.find((r) => r.text === `svc-tab1-${tag}`)?.tab).toBe(1);
    expect(all.console.filter((r) => r.tab === opened).length).toBe(selected.console.length);
    await ok("tabs", "close");
    expect((await consoleRows()).tab).toBe(1);
  });

  it("lists each entry once after `svc back` restores the page from the back/forward cache", async () => {
    await ok("console", "--clear");
    await ok("errors", "--clear");
    await ok("goto", cacheableUrl(`/logs.html?tag=${tag}`));
    await rowsWhen(() => errorRows(), (d) => d.errors.length > 0);
    await ok("goto", cacheableUrl("/other.html"));
    await ok("back");
    // Restored, not loaded again (which would log again): Chrome replays what the document reported before.
    expect(json<{ result: string }>(await ok("--json", "eval", "document.title")).result).toBe("Restored");
    // A message logged after the restore: once it is listed, so is anything the restore replayed before it.
    await ok("eval", `console.log("svc-back-after-${tag}"), 1`);
    const rows = (await rowsWhen(() => consoleRows(), (d) => texts(d.console).includes(`svc-back-after-${tag}`))).console;
    expect(texts(rows)).toEqual([`svc-back-one-${tag}`, `svc-back-two-${tag}`, `svc-back-after-${tag}`]);
    expect((await errorRows()).errors.map((e) => e.message)).toEqual([`Error: svc-back-error-${tag}`]);
    expect((await ok("errors")).trimEnd().split("\n")).toHaveLength(1);
  });

  it("masks the session's secrets in the text, the url and the file on disk", async () => {
    const secret = `Hunter2${tag}Secret`;
    await ok("goto", world.server.url("forms.html"));
    await ok("fill", "#password", secret);
    await ok("console", "--clear");
    await ok("goto", world.server.url(`console.html?secret=${secret}`));
    const rows = (await rowsWhen(() => consoleRows(), (d) => d.console.some((r) => r.text.startsWith("the secret is")))).console;
    // The second password of a session is password_2 (the other mode typed one first).
    expect(rows.find((r) => r.text.startsWith("the secret is"))?.text).toMatch(/^the secret is %password(_\d+)?%$/);
    expect(JSON.stringify(rows)).not.toContain(secret);
    const dir = join(world.sb.state, "sessions");
    for (const f of readdirSync(dir).filter((n) => /\.(console|errors)$/.test(n))) {
      expect(readFileSync(join(dir, f), "utf8")).not.toContain(secret);
      expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    }
  });
});
