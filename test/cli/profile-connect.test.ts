/**
 * Launch options of `svc sessions start`, and sessions on a Chrome svc did not start: `--profile DIR` keeps a cookie
 * into the next session and refuses a second live one; `--proxy` credentials are answered by the host and appear in
 * no record, output or command line; `--user-agent` and `--args` reach Chrome; `svc connect PORT` ends only the host.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as netServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM, expectOneLine, json, pidAlive, processesMentioning, svc, useCliWorld, waitFor } from "./helpers.js";

const world = useCliWorld();
const run = (...args: string[]) => svc(args, world.sb.env);

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

async function page<T>(session: string, expr: string): Promise<T> {
  return json<{ result: T }>(await ok("--json", "--session", session, "eval", expr)).result;
}

interface Started {
  session: { id: string; pid: number; userDataDir: string; attached?: string; proxy?: string };
}

describe("--profile", () => {
  it("keeps cookies from one session to the next; one live session per profile", async () => {
    const dir = join(world.sb.tmp, "profile");
    const first = json<Started>(await ok("--json", "sessions", "start", "--profile", dir, "--name", "p1")).session;
    expect(first.userDataDir).toBe(dir);
    await ok("--session", "p1", "goto", world.server.url("forms.html"));
    await page("p1", "document.cookie = 'kept=yes; max-age=3600; path=/'");
    const busy = await run("sessions", "start", "--profile", dir);
    expect(busy.code).toBe(2);
    expect(expectOneLine(busy.stderr)).toMatch(/--profile .* is in use by live session p1/);
    await ok("sessions", "end", "p1");
    expect(existsSync(join(dir, "Default"))).toBe(true);

    await ok("sessions", "start", "--profile", dir, "--name", "p2");
    await ok("--session", "p2", "goto", world.server.url("forms.html"));
    expect(await page("p2", "document.cookie")).toContain("kept=yes");
    await ok("sessions", "end", "p2");
    expect(existsSync(join(dir, "Default"))).toBe(true);
  });
});

describe("--proxy, --user-agent, --args", () => {
  let proxy: Server | undefined;
  afterAll(() => proxy?.close());

  it("answers the proxy's challenge in the host and never shows the password", async () => {
    const asked: string[] = [];
    proxy = createServer((req, res) => {
      asked.push(`${req.url} ${req.headers["proxy-authorization"] ?? "-"}`);
      if (req.headers["proxy-authorization"] !== `Basic ${Buffer.from("ada:s3cr3t-pw").toString("base64")}`) {
        res.writeHead(407, { "proxy-authenticate": 'Basic realm="svc-test"', "content-type": "text/plain" });
        return res.end("proxy auth required");
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>via proxy</title><p id="ua">${req.headers["user-agent"]}</p>`);
    });
    await new Promise<void>((r) => proxy!.listen(0, "127.0.0.1", r));
    const port = (proxy.address() as AddressInfo).port;
    const started = await run("--json", "sessions", "start", "--name", "px", "--proxy", `http://ada:s3cr3t-pw@127.0.0.1:${port}`, "--user-agent", "ProxyAgent/2.0", "--args", "--lang=fr --disable-gpu");
    expect(started.stderr).toBe("");
    expect(started.code).toBe(0);
    const s = json<Started>(started.stdout).session;
    expect(s.proxy).toBe(`http://ada@127.0.0.1:${port}`);

    await ok("--session", "px", "network", "route", "**/api/*", "--body", '{"routed":true}');
    await ok("--session", "px", "goto", "http://svc-proxy.test/");
    expect(await page("px", "[document.title, document.getElementById('ua')?.textContent, navigator.userAgent]")).toEqual(["via proxy", "ProxyAgent/2.0", "ProxyAgent/2.0"]);
    expect(asked.some((a) => a.startsWith("http://svc-proxy.test/ Basic "))).toBe(true);

    // Routes and the proxy's authentication share each page's Fetch domain (commands/host/fetch.ts): a routed
    // request is answered by its route (the proxy never sees it), any other still passes the proxy, authenticated
    // (the route was set before the first challenge, so the challenge was answered with routes in place).
    const seen = asked.length;
    expect(await page("px", "Promise.all([fetch('/api/x').then((r) => r.text()), fetch('/other').then((r) => r.status)])")).toEqual(['{"routed":true}', 200]);
    expect(asked.slice(seen).filter((a) => a.includes("/api/"))).toEqual([]);
    expect(asked.slice(seen).some((a) => a.startsWith("http://svc-proxy.test/other Basic "))).toBe(true);

    // The password is nowhere svc writes or shows it, nor on a command line another user could read.
    const shown = await ok("sessions", "show", "px");
    expect(shown).toMatch(new RegExp(`proxy\\s+http://ada@127\\.0\\.0\\.1:${port}\\n`));
    expect(shown).toContain("--lang=fr --disable-gpu");
    for (const text of [started.stdout, shown, await ok("--json", "sessions", "show", "px"), readFileSync(join(world.sb.state, "sessions", `${s.id}.json`), "utf8")]) {
      expect(text).not.toContain("s3cr3t-pw");
    }
    expect(readFileSync(`/proc/${s.pid}/cmdline`, "utf8").split("\0")).toEqual(expect.arrayContaining(["--lang=fr", "--disable-gpu", "--user-agent=ProxyAgent/2.0"]));
    const lines = processesMentioning(s.id).map((p) => readFileSync(`/proc/${p}/cmdline`, "utf8"));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).not.toContain("s3cr3t-pw");
    await ok("sessions", "end", "px");
  });

  it("--ignore-https-errors: a page with a self-signed certificate loads", async () => {
    const key = join(world.sb.tmp, "tls.key");
    const cert = join(world.sb.tmp, "tls.crt");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"], { stdio: "ignore" });
    const https = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>self-signed</title>");
    });
    await new Promise<void>((r) => https.listen(0, "127.0.0.1", r));
    try {
      const url = `https://localhost:${(https.address() as AddressInfo).port}/`;
      await ok("sessions", "start", "--name", "strict");
      const refused = await run("--session", "strict", "goto", url);
      expect(refused.code).toBe(5);
      await ok("sessions", "end", "strict");
      await ok("sessions", "start", "--name", "lax", "--ignore-https-errors");
      await ok("--session", "lax", "goto", url);
      expect(await page("lax", "document.title")).toBe("self-signed");
      expect(await ok("sessions", "show", "lax")).toMatch(/https errors\s+ignored/);
      await ok("sessions", "end", "lax");
    } finally {
      https.close();
    }
  });

  it("refuses flags that would cut svc off from Chrome, with one line naming --args", async () => {
    const sessions = async () => json<{ sessions: { id: string }[] }>(await ok("--json", "sessions", "list")).sessions.map((x) => x.id);
    const before = await sessions();
    for (const [args, message] of [
      [["--args", "--remote-debugging-port=9222"], /invalid --args: --remote-debugging-port is not allowed/],
      [["--args", "--user-data-dir=/tmp/x"], /invalid --args: --user-data-dir is not allowed \(use --profile DIR\)/],
      [["--args", "lang=fr"], /invalid --args: "lang=fr" is not a Chrome flag/],
      [["--proxy", "ftp://proxy:21"], /invalid --proxy: scheme must be/],
      [["--proxy", "socks5://u:p@proxy:1080"], /invalid --proxy: Chrome cannot authenticate to a SOCKS proxy/],
    ] as const) {
      const r = await run("sessions", "start", ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(message);
    }
    expect(await sessions()).toEqual(before);
  });
});

describe("svc connect", () => {
  let chrome: ChildProcess | undefined;
  afterAll(() => {
    if (chrome?.pid && pidAlive(chrome.pid)) chrome.kill("SIGKILL");
  });

  async function freePort(): Promise<number> {
    const s = netServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    return port;
  }

  async function devtoolsAnswers(port: number): Promise<boolean> {
    return fetch(`http://127.0.0.1:${port}/json/version`).then((r) => r.ok, () => false);
  }

  it("attaches to a Chrome it did not start, and ending the session leaves that Chrome running", async () => {
    const port = await freePort();
    chrome = spawn(CHROMIUM, ["--headless=new", "--no-sandbox", `--remote-debugging-port=${port}`, `--user-data-dir=${join(world.sb.tmp, "own-chrome")}`, "--no-first-run", "about:blank"], { stdio: "ignore", env: { ...process.env, TMPDIR: world.sb.userChromeTmp() } });
    let up = false;
    for (let i = 0; i < 300 && !up; i++) up = (await devtoolsAnswers(port)) || (await new Promise((r) => setTimeout(r, 100)), false);
    expect(up).toBe(true);

    const s = json<Started>(await ok("--json", "connect", String(port), "--name", "mine")).session;
    expect(s.attached).toBe(`http://127.0.0.1:${port}`);
    await ok("--session", "mine", "goto", world.server.url("forms.html"));
    expect(await page("mine", "location.pathname")).toBe("/forms.html");
    const listed = json<{ sessions: { name?: string; kind: string; status: string }[] }>(await ok("--json", "sessions", "list")).sessions;
    expect(listed.find((x) => x.name === "mine")).toMatchObject({ kind: "attached", status: "alive" });
    expect(await ok("sessions", "show", "mine")).toMatch(new RegExp(`attached to\\s+http://127\\.0\\.0\\.1:${port}\\n`));

    await ok("sessions", "end", "mine");
    await waitFor(() => !pidAlive(s.pid)); // the session's host ended
    expect(pidAlive(chrome.pid!)).toBe(true);
    expect(await devtoolsAnswers(port)).toBe(true);
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { url: string }[];
    expect(targets.some((t) => t.url.endsWith("/forms.html"))).toBe(true);

    // An attached session that idles out ends its host only, too.
    const idle = json<Started>(await ok("--json", "connect", `http://127.0.0.1:${port}`, "--idle-timeout", "0.05")).session;
    await waitFor(() => !pidAlive(idle.pid), 30_000);
    expect(pidAlive(chrome.pid!)).toBe(true);
    expect(await devtoolsAnswers(port)).toBe(true);
    chrome.kill("SIGKILL");
  });

  it("takes only loopback DevTools HTTP endpoints", async () => {
    for (const target of ["http://192.0.2.1:9222", "example.com:9222", "99999"]) {
      const r = await run("connect", target);
      expect(r.code, target).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(/invalid (endpoint|PORT)/);
    }
  });
});
