/**
 * A state dir so deep that `<state>/sessions/<id>.sock` does not fit a unix socket's path: the session's host
 * listens in a folder of this user's alone under /tmp instead, and its commands are still served by the host.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { assertBuilt, collect, sandbox, type Sandbox, spawnSvc, svc } from "./helpers.js";

let server: FixtureServer;
let sb: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  assertBuilt();
  server = await startFixtureServer();
  sb = sandbox();
  env = { ...sb.env, SVC_STATE_DIR: join(sb.env.SVC_STATE_DIR!, "a-state-dir-deep-enough-that-a-socket-path-under-it-cannot-be-a-unix-socket") };
});

afterAll(async () => {
  await svc(["sessions", "end", "--all"], env).catch(() => undefined);
  sb?.cleanup();
  await server?.close();
});

describe("a deep state dir", () => {
  it("the session's host listens under /tmp in a 0700 folder and serves the session's commands", async () => {
    expect(Buffer.byteLength(join(env.SVC_STATE_DIR!, "sessions", "x".repeat(16) + ".sock"))).toBeGreaterThan(100);
    const started = await svc(["sessions", "start", "--idle-timeout", "5"], env);
    expect(started.code, started.stderr).toBe(0);
    const goto = await collect(spawnSvc(["goto", server.url("forms.html")], { ...env, SVC_PHASES: "1" }));
    expect(goto.code, goto.stderr).toBe(0);
    const snap = await collect(spawnSvc(["snapshot", "-i"], { ...env, SVC_PHASES: "1" }));
    expect(snap.code, snap.stderr).toBe(0);
    expect(snap.stdout).toMatch(/textbox "?Full name/);
    // Served by the host (its phase line), not by a full CLI that attached on its own.
    expect(snap.stderr).toMatch(/^svc\[phase\] hosted \d+$/m);
    const dir = join("/tmp", `svc-${process.getuid!()}`);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const ended = await svc(["sessions", "end", "--all"], env);
    expect(ended.code, ended.stderr).toBe(0);
  });
});
