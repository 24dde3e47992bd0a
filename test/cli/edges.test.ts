/**
 * CLI edges (issue 11): a session whose watchdog is killed does not leave its Chrome running, and the next
 * command says the session's browser is gone and how to start a new one; a data: URL with a space is a URL.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, expectNoProcesses, expectOneLine, json, pidAlive, processesMentioning, sandbox, svc, waitFor } from "./helpers.js";

let sb: Sandbox;
beforeAll(() => {
  assertBuilt();
  sb = sandbox();
});
afterAll(() => sb?.cleanup());

describe("a CLI session's watchdog", () => {
  it("killed (-9): its Chrome ends long before the idle timeout, and goto says the browser is gone", async () => {
    const started = await svc(["--json", "sessions", "start", "--idle-timeout", "30"], sb.env);
    expect(started.code, started.stderr).toBe(0);
    const { session } = json<{ session: { id: string; pid: number; userDataDir: string } }>(started.stdout);
    const reapers = processesMentioning(session.userDataDir).filter((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("reaper.js"));
    expect(reapers).toHaveLength(1);
    process.kill(reapers[0]!, "SIGKILL");
    // Nothing owns this Chrome any more (the command that started it exited): it must end.
    expect(await waitFor(() => !pidAlive(session.pid), 10_000)).toBe(true);
    await expectNoProcesses(session.userDataDir);

    const r = await svc(["goto", "about:blank"], sb.env);
    expect(r.code).toBe(4);
    const line = expectOneLine(r.stderr);
    expect(line).toMatch(new RegExp(`session ${session.id} is no longer running: its browser is gone`));
    expect(line).toMatch(/start a new one with `svc sessions start`/);
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
