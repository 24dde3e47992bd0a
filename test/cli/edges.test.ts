/**
 * CLI edges (issue 11): a session whose resident host is killed does not leave its Chrome running, and the next
 * command says the session's browser is gone and how to start a new one; a data: URL with a space is a URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, expectNoProcesses, expectOneLine, json, pidAlive, processesMentioning, sandbox, svc, waitFor } from "./helpers.js";

let sb: Sandbox;
beforeAll(() => {
  assertBuilt();
  sb = sandbox();
});
afterAll(() => sb?.cleanup());

describe("a CLI session's resident host", () => {
  it("killed (-9): its Chrome ends long before the idle timeout; a verb says the browser is gone, goto starts a new session naming the dead one", async () => {
    const started = await svc(["--json", "sessions", "start", "--idle-timeout", "30"], sb.env);
    expect(started.code, started.stderr).toBe(0);
    const { session } = json<{ session: { id: string; pid: number; userDataDir: string } }>(started.stdout);
    // The host's command line names the session; it holds Chrome's pipe.
    const hosts = processesMentioning(`host/main.js\0${session.id}\0`);
    expect(hosts).toHaveLength(1);
    process.kill(hosts[0]!, "SIGKILL");
    // Nothing owns this Chrome any more (the command that started it exited): it must end.
    await waitFor(() => !pidAlive(session.pid));
    await expectNoProcesses(session.userDataDir);

    // A verb that needs a session says so (exit 4) and forgets the dead record...
    const r = await svc(["--session", session.id, "snapshot"], sb.env);
    expect(r.code).toBe(4);
    const line = expectOneLine(r.stderr);
    expect(line).toMatch(new RegExp(`session ${session.id} is no longer running: its browser is gone`));
    expect(line).toMatch(/start a new one with `svc sessions start`/);
  }, 60_000);

  it("goto after the session's browser died: starts a new session and names the dead one", async () => {
    const started = await svc(["--json", "sessions", "start"], sb.env);
    expect(started.code, started.stderr).toBe(0);
    const { session } = json<{ session: { id: string; pid: number; userDataDir: string } }>(started.stdout);
    process.kill(session.pid, "SIGKILL");
    await waitFor(() => !pidAlive(session.pid));
    const r = await svc(["goto", "about:blank"], sb.env);
    expect(r.code, r.stderr).toBe(0);
    const line = expectOneLine(r.stderr);
    expect(line).toMatch(new RegExp(`session ${session.id} is no longer running \\(its browser is gone; record removed\\), so goto started session (\\S+)`));
    const fresh = /started session (\S+)/.exec(line)![1]!;
    expect(fresh).not.toBe(session.id);
    expect((await svc(["sessions", "end", fresh], sb.env)).code).toBe(0);
    await expectNoProcesses(session.userDataDir);
  }, 60_000);
});

describe("svc extract URL", () => {
  it("takes a data: URL with a space as the URL (one-shot browser), not as an instruction", async () => {
    const r = await svc(["--json", "extract", "data:text/html,<h1>from data</h1>"], sb.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.stringify(json(r.stdout))).toContain("from data");
  }, 60_000);
});
