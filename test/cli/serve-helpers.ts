/** Running the built `svc serve` from a test: spawn it and wait for its announcement. */
import type { ChildProcess } from "node:child_process";
import { type RunResult, collect, spawnSvc, waitFor, pollUntil } from "./helpers.js";

export interface Served {
  child: ChildProcess;
  url: string;
  port: number;
  done: Promise<RunResult>;
  /** stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
}

/** Spawn `svc [pre…] serve --port 0 [args…]` and wait for its announcement (JSON line or stderr line). */
export async function startServe(env: NodeJS.ProcessEnv, args: readonly string[] = [], pre: readonly string[] = ["--json"]): Promise<Served> {
  const child = spawnSvc([...pre, "serve", "--port", "0", ...args], env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer | string) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer | string) => (stderr += d.toString()));
  // A server lives as long as the file that started it (the file ends it): the bound is only against a hang
  // and must outlast a whole file on a loaded machine (120 s did not: the timer killed a live server).
  const done = collect(child, 30 * 60_000);
  let exited = false;
  void done.then(
    () => (exited = true),
    () => (exited = true),
  );
  const announced = () => (pre.includes("--json") ? stdout.includes("\n") : /listening on http:\/\/\S+:\d+/.test(stderr));
  await pollUntil(() => announced() || exited, 30_000, 25);
  if (!announced()) {
    child.kill("SIGKILL");
    throw new Error(`svc serve did not start:\n${stderr}${stdout}`);
  }
  let url: string;
  let port: number;
  if (pre.includes("--json")) {
    const doc = JSON.parse(stdout.split("\n")[0]!) as { schemaVersion: number; url: string; port: number };
    if (doc.schemaVersion !== 1) throw new Error(`svc serve announced schemaVersion ${doc.schemaVersion}`);
    ({ url, port } = doc);
  } else {
    const m = /listening on (http:\/\/\S+:(\d+))/.exec(stderr)!;
    url = m[1]!;
    port = Number(m[2]);
  }
  return { child, url, port, done, output: () => ({ stdout, stderr }) };
}
