/**
 * A real Redis for a test file: Debian's `redis-server` on a free loopback port, in a temp dir, with no
 * persistence. It stops when the test file ends (afterAll) and, if the test process dies first, by itself:
 * it is started with the test process's pid and exits when that process is gone (a watchdog polls it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { useResource } from "./use-resource.js";

export const REDIS_SERVER = process.env.SVC_TEST_REDIS_SERVER ?? "/usr/bin/redis-server";

export interface TestRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  close(): Promise<void>;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("\r\n")) done(data.startsWith("+PONG"));
    });
    socket.once("connect", () => socket.write("PING\r\n"));
  });
}

/** Starts a Redis server; resolves once it answers PING. */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), "svc-redis-"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // If this test process dies without afterAll, the watchdog ends the server.
  const watchdog = spawn(
    process.execPath,
    ["-e", `const p=${process.pid},c=${child.pid};setInterval(()=>{try{process.kill(p,0)}catch{try{process.kill(c,"SIGKILL")}catch{}process.exit(0)}},500)`],
    { stdio: "ignore", detached: true },
  );
  watchdog.unref();
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      watchdog.kill();
      throw new Error(`redis-server did not start on port ${port}: ${stderr.trim() || "no answer to PING"}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async close() {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
      watchdog.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis server for a test file (started in beforeAll, stopped in afterAll). */
export function useRedis(): TestRedis {
  return useResource("redis-server", startRedis);
}
