/**
 * A persistent session through the built CLI: start → goto a fixture page → act (click) → extract shows
 * the effect → history/metrics → end, and then nothing of that session is left: no Chrome, no reaper,
 * no profile, no temp files; history and metrics stay readable.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import {
  type Sandbox,
  assertBuilt,
  chromeProcessesOf,
  collect,
  expectEmptyDir,
  expectNoChrome,
  expectNoProcesses,
  expectOneLine,
  filesUnder,
  json,
  pidAlive,
  sandbox,
  spawnSvc,
  strayStateFiles,
  svc,
  waitFor,
} from "./helpers.js";

// What happens to a session's Chrome once the command that started it has exited (idle end, signals, SIGKILL):
// the commands that start and end sessions, and the interrupted one-shot runs, are real `node bin/svc.js`
// processes; the page commands between them run through the same entry in this process (./in-process.ts).
const spawned = (args: readonly string[], env: NodeJS.ProcessEnv) => collect(spawnSvc(args, env));

interface SessionJson {
  session: { id: string; pid: number; userDataDir: string; wsEndpoint: string; heartbeatFile: string; idleMs: number; headless: boolean };
}

let server: FixtureServer;
beforeAll(async () => {
  assertBuilt();
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

describe("svc sessions", () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = sandbox();
  });
  afterAll(() => sb.cleanup());

  it("start → goto → act → extract → history/metrics → end leaves nothing behind", async () => {
    const started = await spawned(["--json", "sessions", "start", "--idle-timeout", "5", "--viewport", "1024x700"], sb.env);
    expect(started.stderr).toBe("");
    expect(started.code).toBe(0);
    const { session } = json<SessionJson & { schemaVersion: number }>(started.stdout);
    expect(json<{ schemaVersion: number }>(started.stdout).schemaVersion).toBe(1);
    expect(session.headless).toBe(true);
    expect(session.idleMs).toBe(5 * 60_000);
    expect(pidAlive(session.pid)).toBe(true);
    expect(existsSync(session.userDataDir)).toBe(true);
    expect(session.userDataDir.startsWith(join(sb.runBase, "svc-chrome-"))).toBe(true);
    expect(statSync(sb.state).mode & 0o777).toBe(0o700);

    // The CLI that started it has exited; Chrome outlives it.
    const listed = await svc(["--json", "sessions", "list"], sb.env);
    expect(listed.code).toBe(0);
    const rows = json<{ sessions: { id: string; alive: boolean }[] }>(listed.stdout).sessions;
    expect(rows).toEqual([expect.objectContaining({ id: session.id, alive: true })]);

    const hbBefore = statSync(session.heartbeatFile).mtimeMs;
    const nav = await svc(["--json", "goto", server.url("forms.html")], sb.env);
    expect(nav.stderr).toBe("");
    expect(nav.code).toBe(0);
    expect(json(nav.stdout)).toMatchObject({ ok: true, session: session.id, title: "Forms", url: server.url("forms.html") });
    expect(statSync(session.heartbeatFile).mtimeMs).toBeGreaterThanOrEqual(hbBefore);

    const action = { selector: "#help-link", description: "the Help link", method: "click", arguments: [] };
    const acted = await svc(["--json", "--session", session.id, "act", "--action", JSON.stringify(action)], sb.env);
    expect(acted.stderr).toBe("");
    expect(acted.code).toBe(0);
    expect(json(acted.stdout)).toMatchObject({ ok: true, result: { success: true } });

    // Action from a file, too: fill the name field.
    const actionFile = join(sb.tmp, "..", "fill.json");
    await import("node:fs").then((fs) =>
      fs.writeFileSync(actionFile, JSON.stringify({ selector: "#name", description: "name", method: "fill", arguments: ["Ada Lovelace"] })),
    );
    const filled = await svc(["act", "--action", `@${actionFile}`], sb.env);
    expect(filled.stderr).toBe("");
    expect(filled.code).toBe(0);

    const extracted = await svc(["--json", "extract"], sb.env);
    expect(extracted.stderr).toBe("");
    expect(extracted.code).toBe(0);
    const { pageText } = json<{ pageText: string }>(extracted.stdout);
    expect(pageText).toContain("name: Ada Lovelace");

    // Text mode prints the page text itself.
    const text = await svc(["extract"], sb.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Forms");

    const shot = join(sb.tmp, "..", "page.png");
    const screenshot = await svc(["--json", "screenshot", "-o", shot, "--full-page"], sb.env);
    expect(screenshot.stderr).toBe("");
    expect(screenshot.code).toBe(0);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
    // No half-written file stays: the host's own records (its network log) may be mid-write at any moment.
    await waitFor(() => filesUnder(join(sb.tmp, "..")).filter((f) => f.endsWith(".tmp")).length === 0);

    const history = await svc(["--json", "history"], sb.env);
    expect(history.code).toBe(0);
    const entries = json<{ session: string; entries: { method: string }[] }>(history.stdout);
    expect(entries.session).toBe(session.id);
    expect(entries.entries.map((e) => e.method)).toEqual(["navigate", "act", "act", "extract", "extract"]);

    const metrics = await svc(["--json", "metrics"], sb.env);
    expect(metrics.code).toBe(0);
    const m = json<{ commands: number; metrics: Record<string, number> }>(metrics.stdout);
    expect(m.commands).toBe(6); // goto, act, act, extract, extract, screenshot
    expect(m.metrics).toHaveProperty("totalPromptTokens", 0);
    expect(m.metrics).toHaveProperty("actInferenceTimeMs", 0);

    const ended = await spawned(["--json", "sessions", "end", session.id], sb.env);
    expect(ended.stderr).toBe("");
    expect(ended.code).toBe(0);
    expect(json(ended.stdout)).toMatchObject({ ok: true, ended: [session.id] });

    // Nothing of that session is left: its Chrome (and every child), its reaper, its profile, temp files.
    await waitFor(() => !pidAlive(session.pid));
    await expectNoProcesses(session.userDataDir);
    await expectNoChrome(sb.tmp);
    expect(existsSync(session.userDataDir)).toBe(false);
    expect(existsSync(session.heartbeatFile)).toBe(false);
    expect(filesUnder(sb.tmp)).toEqual([]);
    expect(strayStateFiles(sb.state)).toEqual([]);

    // History and metrics outlive the session.
    const after = await svc(["--json", "--session", session.id, "metrics"], sb.env);
    expect(after.code).toBe(0);
    expect(json<{ commands: number }>(after.stdout).commands).toBe(6);
    const shown = await svc(["--json", "sessions", "show", session.id], sb.env);
    expect(shown.code).toBe(0);
    expect(json(shown.stdout)).toMatchObject({ session: { id: session.id, status: "ended" }, historyEntries: 5 });

    // And with it gone, session commands say how to get one.
    const none = await svc(["snapshot"], sb.env);
    expect(none.code).toBe(4);
    expect(expectOneLine(none.stderr)).toMatch(/no running session.*svc sessions start/);
  }, 180_000);

  it("reattaches to the most recently used live session; --session picks another; end --all ends all", async () => {
    const a = json<SessionJson>((await spawned(["--json", "sessions", "start"], sb.env)).stdout).session;
    const b = json<SessionJson>((await spawned(["--json", "sessions", "start"], sb.env)).stdout).session;
    try {
      const onA = await svc(["--json", "--session", a.id, "goto", server.url("forms.html")], sb.env);
      expect(json(onA.stdout)).toMatchObject({ session: a.id });
      // a is now the most recently used.
      const implicit = await svc(["--json", "extract"], sb.env);
      expect(json(implicit.stdout)).toMatchObject({ session: a.id, url: server.url("forms.html") });
      const onB = await svc(["--json", "--session", b.id, "extract"], sb.env);
      expect(json<{ url: string }>(onB.stdout).url).toBe("about:blank");
    } finally {
      const ended = await spawned(["--json", "sessions", "end", "--all"], sb.env);
      expect(ended.code).toBe(0);
      expect(new Set(json<{ ended: string[] }>(ended.stdout).ended)).toEqual(new Set([a.id, b.id]));
    }
    await waitFor(() => !pidAlive(a.pid) && !pidAlive(b.pid));
    await expectNoChrome(sb.tmp);
    expect(filesUnder(sb.tmp)).toEqual([]);
  }, 180_000);

  it("an idle session ends itself (Chrome, reaper and profile gone)", async () => {
    // 0.02 min = 1.2 s of idleness.
    const s = json<SessionJson>((await spawned(["--json", "sessions", "start", "--idle-timeout", "0.02"], sb.env)).stdout).session;
    await waitFor(() => !pidAlive(s.pid));
    await waitFor(() => !existsSync(s.userDataDir));
    await expectNoProcesses(s.userDataDir);
    const used = await svc(["--session", s.id, "extract"], sb.env);
    expect(used.code).toBe(4);
    expect(expectOneLine(used.stderr)).toContain(s.id);
  }, 60_000);
});

describe("no orphan Chrome from a one-shot run", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = sandbox();
  });
  afterEach(() => sb.cleanup());

  it("extract URL without a session uses a one-shot browser, closed at the end", async () => {
    const r = await spawned(["--json", "extract", server.url("forms.html")], sb.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json<{ pageText: string }>(r.stdout).pageText).toContain("Full name");
    await expectNoChrome(sb.tmp);
    await expectEmptyDir(sb.tmp);
    const h = await svc(["--json", "--session", "default", "history"], sb.env);
    expect(json<{ entries: { method: string }[] }>(h.stdout).entries.map((e) => e.method)).toEqual(["navigate", "extract"]);
  }, 60_000);

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} during a one-shot run closes the browser and exits 130`, async () => {
      const child = spawnSvc(["extract", server.url("/slow?ms=30000")], sb.env);
      const done = collect(child, 60_000);
      // Wait until its Chrome is up, then interrupt.
      const runDir = await waitFor(() => chromeProcessesOf(sb.tmp).find((p) => p.kind === "chrome")?.runDir, 30_000);
      await new Promise((r) => setTimeout(r, 300));
      child.kill(signal);
      const r = await done;
      expect(r.code).toBe(130);
      expect(expectOneLine(r.stderr)).toMatch(/interrupted|terminated/);
      await expectNoChrome(sb.tmp);
      await expectEmptyDir(sb.tmp);
      await waitFor(() => !existsSync(runDir)); // under TMPDIR, or in /tmp when TMPDIR is too long
    }, 90_000);
  }

  it("SIGKILL of the CLI: the reaper still ends its Chrome", async () => {
    const child = spawnSvc(["extract", server.url("/slow?ms=30000")], sb.env);
    const done = collect(child, 60_000);
    // Once Chrome is up and its reaper is watching (the reaper is what guards against SIGKILL).
    const runDir = await waitFor(() => chromeProcessesOf(sb.tmp).find((p) => p.kind === "reaper")?.runDir, 30_000);
    child.kill("SIGKILL");
    await done;
    await expectNoChrome(sb.tmp);
    await expectEmptyDir(sb.tmp);
    await waitFor(() => !existsSync(runDir));
  }, 90_000);
});
