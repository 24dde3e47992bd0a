/**
 * Each bad input: one line on stderr naming what was wrong, the exact exit code of commands/EXIT_CODES.md,
 * nothing on stdout, and nothing left behind (no Chrome or reaper mentioning the sandbox, no files in
 * its TMPDIR, no temp/lock files in the state dir).
 */
import { createServer } from "node:net";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import {
  type RunResult,
  type Sandbox,
  ROOT,
  assertBuilt,
  expectEmptyDir,
  expectNoProcesses,
  expectOneLine,
  filesUnder,
  json,
  pidAlive,
  sandbox,
  settledStrayStateFiles,
  strayStateFiles,
  svc,
  waitFor,
  expectNoChrome,
} from "./helpers.js";

let server: FixtureServer;
beforeAll(async () => {
  assertBuilt();
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

/** A loopback port with nothing listening (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function expectFailure(r: RunResult, code: number, message: RegExp, sb: Sandbox): Promise<void> {
  const line = expectOneLine(r.stderr);
  expect(line).toMatch(message);
  expect(r.stdout).toBe("");
  expect(r.code).toBe(code);
  await expectNoChrome(sb.tmp);
  await expectEmptyDir(sb.tmp);
  expect(strayStateFiles(sb.state)).toEqual([]);
}

describe("bad input without a browser", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = sandbox();
  });
  afterEach(() => sb.cleanup());

  it("malformed Action JSON → 2, before any session is looked up", async () => {
    await expectFailure(await svc(["act", "--action", "{selector: #x"], sb.env), 2, /^svc: --action is not valid JSON: .*hint: expected \{"selector"/, sb);
  });

  it("an Action missing a field → 2, naming the field", async () => {
    await expectFailure(await svc(["act", "--action", '{"selector":"#x","method":"click","arguments":[]}'], sb.env), 2, /description/, sb);
  });

  it("unknown method → 2, listing the known ones", async () => {
    const action = JSON.stringify({ selector: "#x", description: "x", method: "teleport", arguments: [] });
    await expectFailure(await svc(["act", "--action", action], sb.env), 2, /unknown method "teleport".*click/, sb);
  });

  it("a missing @file for --action → 2", async () => {
    await expectFailure(await svc(["act", "--action", "@/nonexistent/action.json"], sb.env), 2, /cannot read action file \/nonexistent\/action\.json/, sb);
  });

  it("bad URL scheme: svc goto notaurl → 2", async () => {
    await expectFailure(await svc(["goto", "notaurl"], sb.env), 2, /invalid URL "notaurl"/, sb);
    await expectFailure(await svc(["goto", "example.com"], sb.env), 2, /did you mean https:\/\/example\.com/, sb);
    await expectFailure(await svc(["extract", "javascript:alert(1)"], sb.env), 2, /url: only http, https, file, data and about:blank URLs can be opened \(got javascript:\)/, sb);
  });

  it("unknown flag / command → 2 (usage)", async () => {
    await expectFailure(await svc(["goto", "--bogus", "http://x.test/"], sb.env), 2, /unknown option '--bogus'/, sb);
    await expectFailure(await svc(["frobnicate"], sb.env), 2, /unknown command 'frobnicate'/, sb);
    await expectFailure(await svc(["--verbose", "7", "sessions", "list"], sb.env), 2, /--verbose.*7/, sb);
  });

  it("no Chrome installed (CHROME_PATH points nowhere) → 3, saying how to install one", async () => {
    const env = { ...sb.env, CHROME_PATH: "/nonexistent/chrome" };
    await expectFailure(await svc(["extract", server.url("forms.html")], env), 3, /\/nonexistent\/chrome.*install Chromium.*apt-get install -y chromium/, sb);
    await expectFailure(await svc(["sessions", "start"], env), 3, /install Chromium/, sb);
    await expectFailure(
      await svc(["sessions", "start", "--executable-path", "/nonexistent/flag-chrome"], sb.env),
      3,
      /\/nonexistent\/flag-chrome \(from --executable-path\).*install/,
      sb,
    );
    expect(filesUnder(join(sb.state, "sessions"))).toEqual([]);
  });

  it("no Chrome anywhere on PATH and no CHROME_PATH → 3, saying how to install one", async () => {
    const nodeOnly = join(sb.tmp, "..", "bin");
    mkdirSync(nodeOnly);
    const env: NodeJS.ProcessEnv = { ...sb.env, PATH: nodeOnly };
    delete env.CHROME_PATH;
    const r = await svc(["extract", server.url("forms.html")], env);
    // A machine with Chrome in a standard desktop location may still find one; then this case does not apply.
    if (r.code === 0) return;
    await expectFailure(r, 3, /no Chrome or Chromium installation found.*install/i, sb);
  });

  it("unknown session id → 4, naming it", async () => {
    await expectFailure(await svc(["--session", "deadbeef", "goto", server.url("forms.html")], sb.env), 4, /no session "deadbeef"/, sb);
    await expectFailure(await svc(["sessions", "end", "deadbeef"], sb.env), 4, /no session "deadbeef"/, sb);
    await expectFailure(await svc(["sessions", "show", "deadbeef"], sb.env), 4, /no session "deadbeef"/, sb);
    await expectFailure(await svc(["--session", "../../etc", "history"], sb.env), 2, /invalid session id/, sb);
  });

  it("no session at all → 4, telling the user to run svc sessions start", async () => {
    await expectFailure(await svc(["snapshot"], sb.env), 4, /no running session.*svc sessions start/, sb);
    await expectFailure(await svc(["extract"], sb.env), 4, /svc sessions start/, sb);
    await expectFailure(await svc(["screenshot", "-o", join(sb.tmp, "..", "x.png")], sb.env), 4, /svc sessions start/, sb);
  });

  it("unwritable state dir → 8, naming the path, with nothing launched", async () => {
    const env = { ...sb.env, SVC_STATE_DIR: "/proc/x" };
    for (const args of [["sessions", "list"], ["sessions", "start"], ["extract", server.url("forms.html")], ["goto", server.url("forms.html")], ["history"]]) {
      await expectFailure(await svc(args, env), 8, /cannot use state directory \/proc\/x/, sb);
    }
  });

  it("unwritable config dir → 8, naming the path", async () => {
    const env = { ...sb.env, SVC_CONFIG_DIR: "/proc/x" };
    await expectFailure(await svc(["config", "list"], env), 8, /\/proc\/x/, sb);
    await expectFailure(await svc(["extract", server.url("forms.html")], env), 8, /\/proc\/x/, sb);
  });

  it("--json turns an error into one JSON document on stdout", async () => {
    const r = await svc(["--json", "goto", "notaurl"], sb.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("");
    expect(json(r.stdout)).toEqual({ schemaVersion: 1, ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("notaurl") } });
    const usage = await svc(["--json", "frobnicate"], sb.env);
    expect(usage.code).toBe(2);
    expect(json(usage.stdout)).toMatchObject({ ok: false, error: { code: "USAGE" } });
  });

  it("no stack trace unless --verbose 2", async () => {
    const quiet = await svc(["goto", "notaurl"], sb.env);
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
    const loud = await svc(["--verbose", "2", "goto", "notaurl"], sb.env);
    expect(loud.code).toBe(2);
    expect(loud.stderr).toMatch(/\n\s+at /);
  });

  it("the exit code table in commands/EXIT_CODES.md matches commands/main.ts", () => {
    const doc = readFileSync(join(ROOT, "commands", "EXIT_CODES.md"), "utf8");
    const main = readFileSync(join(ROOT, "commands", "main.ts"), "utf8");
    const byName = Object.fromEntries([...main.matchAll(/^\s+([A-Z]+): (\d+),$/gm)].map((m) => [m[1], Number(m[2])]));
    const docCodes = new Map<string, number>();
    for (const row of doc.matchAll(/^\| (\d+) \|[^|]*\|([^|]*)\|$/gm)) {
      for (const c of row[2]!.matchAll(/`([A-Z_]+)`/g)) docCodes.set(c[1]!, Number(row[1]));
    }
    const mapped = [...main.matchAll(/^\s+([A-Z_]+): EXIT\.([A-Z]+),$/gm)];
    expect(mapped.length).toBeGreaterThan(10);
    for (const [, code, exit] of mapped) expect([code, docCodes.get(code!)]).toEqual([code, byName[exit!]]);
  });
});

describe("bad input against a session", () => {
  let sb: Sandbox;
  let session: { id: string; pid: number; userDataDir: string };
  beforeAll(async () => {
    sb = sandbox();
    const r = await svc(["--json", "sessions", "start"], sb.env);
    expect(r.code).toBe(0);
    session = json<{ session: typeof session }>(r.stdout).session;
  }, 60_000);
  afterAll(async () => {
    await svc(["sessions", "end", "--all"], sb.env);
    sb.cleanup();
  });

  /** Session commands must not leave temp or lock files and must keep the session usable. */
  async function expectSessionFailure(r: RunResult, code: number, message: RegExp): Promise<void> {
    expect(expectOneLine(r.stderr)).toMatch(message);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(code);
    expect(await settledStrayStateFiles(sb.state)).toEqual([]);
    expect(pidAlive(session.pid)).toBe(true);
  }

  it("unreachable URL → 5 (refused connection and an unsafe port), session still alive", async () => {
    const port = await closedPort();
    await expectSessionFailure(await svc(["goto", `http://127.0.0.1:${port}/`], sb.env), 5, new RegExp(`127\\.0\\.0\\.1:${port}.*ERR_CONNECTION_REFUSED`));
    await expectSessionFailure(await svc(["goto", "http://127.0.0.1:1/"], sb.env), 5, /127\.0\.0\.1:1/);
    const ok = await svc(["goto", server.url("forms.html")], sb.env);
    expect(ok.code).toBe(0);
  }, 60_000);

  it("an element that does not exist → 6", async () => {
    const action = JSON.stringify({ selector: "#no-such-element", description: "missing", method: "click", arguments: [] });
    await expectSessionFailure(await svc(["act", "--action", action], sb.env), 6, /#no-such-element/);
  }, 60_000);

  it("screenshot to a missing directory → 2, no partial file", async () => {
    await expectSessionFailure(await svc(["screenshot", "-o", "/nonexistent/dir/x.png"], sb.env), 2, /\/nonexistent\/dir/);
  }, 60_000);

  it("dead session (Chrome killed) → 4 naming the id; the stale record is removed; nothing left", async () => {
    process.kill(session.pid, "SIGKILL");
    await waitFor(() => !pidAlive(session.pid));
    const r = await svc(["--session", session.id, "goto", server.url("forms.html")], sb.env);
    expect(expectOneLine(r.stderr)).toMatch(new RegExp(`session ${session.id} is no longer running`));
    expect(r.code).toBe(4);
    expect(existsSync(join(sb.state, "sessions", `${session.id}.json`))).toBe(false);
    await expectNoChrome(sb.tmp);
    await expectNoProcesses(session.userDataDir);
    expect(existsSync(session.userDataDir)).toBe(false);
    // Implicit resolution now finds nothing.
    const again = await svc(["snapshot"], sb.env);
    expect(again.code).toBe(4);
  }, 60_000);
});
