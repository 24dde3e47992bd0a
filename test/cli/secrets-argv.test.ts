/**
 * `svc serve` and `svc mcp --http` take secrets where no other local user can read them (issue 41): environment, 0600
 * file, stdin. Each runs as a real process and every process's /proc/PID/cmdline is read: none holds the key or
 * token. A secret given as an argument is warned about and gone once it listens; a file others may read is refused.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunResult, type Sandbox, assertBuilt, collect, expectOneLine, sandbox, spawnSvc, svc, waitFor } from "./helpers.js";

beforeAll(() => assertBuilt());

const fresh = (what: string) => `${what}-${randomBytes(12).toString("hex")}`;

/** The pids of every process on this machine whose command line holds `secret`. */
function commandLinesHolding(secret: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(secret)) found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

interface Running {
  pid: number;
  /** The first match of `ready` in stderr (the URL). */
  url: string;
  stderr(): string;
  stop(): Promise<RunResult>;
}

/** Spawns `svc args` and waits for `ready` on its stderr (what it prints once it listens). */
async function launch(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, input?: string): Promise<Running> {
  const child = spawnSvc(args, env);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const done = collect(child, 120_000, input);
  let exited = false;
  void done.then(() => (exited = true), () => (exited = true));
  await waitFor(() => ready.test(err) || exited);
  if (!ready.test(err)) throw new Error(`svc ${args[0]} did not start:\n${err}`);
  return {
    pid: child.pid!,
    url: ready.exec(err)![1]!,
    stderr: () => err,
    stop: () => {
      child.kill("SIGTERM");
      return done;
    },
  };
}

const LISTENING = /listening on (http:\/\/\S+:\d+)/;
const MCP_AT = /MCP server at (\S+) \(/;

function secretFile(sb: Sandbox, name: string, content: string, mode: number): string {
  const path = join(sb.tmp, name);
  writeFileSync(path, `${content}\n`);
  chmodSync(path, mode);
  return path;
}

const sessions = (url: string, key?: string) => fetch(`${url}/v1/sessions`, { headers: key ? { "x-bb-api-key": key } : {} }).then((r) => r.status);
const mcpStatus = (url: string, token?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: "{}" }).then((r) => r.status);

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

describe("svc serve", () => {
  const serve = (args: string[], env: NodeJS.ProcessEnv, input?: string) => launch(["serve", "--port", "0", "--warm-browsers", "0", ...args], env, LISTENING, input);

  it("takes its key from SVC_API_KEYS, a 0600 --api-key-file or stdin (--api-key-file -): it works, no command line holds it, no warning", async () => {
    const ways: Array<[string, (key: string) => [string[], NodeJS.ProcessEnv, string?]]> = [
      ["SVC_API_KEYS", (key) => [[], { ...sb.env, SVC_API_KEYS: key }]],
      ["--api-key-file", (key) => [["--api-key-file", secretFile(sb, "keys", `${fresh("other")}\n${key}`, 0o600), "--data-key-file", secretFile(sb, "data-key", fresh("data"), 0o600)], sb.env]],
      ["--api-key-file -", (key) => [["--api-key-file", "-"], sb.env, `${key}\n`]],
    ];
    for (const [way, given] of ways) {
      const key = fresh("serve-key");
      const [args, env, input] = given(key);
      const server = await serve(args, env, input);
      try {
        expect(await sessions(server.url, key), way).toBe(200);
        expect(await sessions(server.url), way).toBe(401);
        expect(commandLinesHolding(key), way).toEqual([]);
        expect(server.stderr(), way).not.toMatch(/warning/);
      } finally {
        expect((await server.stop()).code, way).toBe(0);
      }
    }
  }, 120_000);

  it("--api-key KEY, --api-key=KEY and --data-key anyway: a warning naming them, and once it listens no command line holds them", async () => {
    const [key, key2, dataKey] = [fresh("serve-key"), fresh("serve-key"), fresh("data-key")];
    const server = await serve(["--api-key", key, `--api-key=${key2}`, "--data-key", dataKey], sb.env);
    try {
      for (const secret of [key, key2, dataKey]) {
        expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8")).not.toContain(secret);
        expect(commandLinesHolding(secret)).toEqual([]);
        expect(server.stderr()).not.toContain(secret);
      }
      expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8")).toMatch(/serve --port 0 --warm-browsers 0 --api-key \*\*\* --api-key=\*\*\* --data-key \*\*\*/);
      expect(server.stderr()).toMatch(/^svc serve: warning: --api-key, --data-key on the command line: any local user could read them there while svc started \(now hidden\); give SVC_API_KEYS or --api-key-file FILE/m);
      expect(await sessions(server.url, key2)).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("a key file group or others may read is refused with one line naming --api-key-file (exit 2); so is a key given twice", async () => {
    const key = fresh("serve-key");
    const open = secretFile(sb, "keys", key, 0o644);
    const r = await svc(["serve", "--port", "0", "--api-key-file", open], sb.env);
    expect(r.code).toBe(2);
    expect(expectOneLine(r.stderr)).toBe(`svc: --api-key-file: ${open} is open to group or others (mode 0644); chmod 600 ${open}`);
    expect(r.stdout + r.stderr).not.toContain(key);
    const both = await svc(["serve", "--port", "0", "--api-key-file", secretFile(sb, "ok", key, 0o600), "--api-key", fresh("k")], sb.env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--api-key and --api-key-file: give one of them, not both/);
  });
});

describe("svc mcp --http", () => {
  const mcp = (args: string[], env: NodeJS.ProcessEnv) => launch(["mcp", "--http", "--port", "0", ...args], env, MCP_AT);

  it("takes its token from SVC_MCP_TOKEN or a 0600 --token-file: it works, no command line holds it, no warning", async () => {
    const ways: Array<[string, (token: string) => [string[], NodeJS.ProcessEnv]]> = [
      ["SVC_MCP_TOKEN", (token) => [[], { ...sb.env, SVC_MCP_TOKEN: token }]],
      ["--token-file", (token) => [["--token-file", secretFile(sb, "token", token, 0o600)], sb.env]],
    ];
    for (const [way, given] of ways) {
      const token = fresh("mcp-token");
      const [args, env] = given(token);
      const server = await mcp(args, env);
      try {
        expect(await mcpStatus(server.url), way).toBe(401);
        expect(await mcpStatus(server.url, token), way).not.toBe(401);
        expect(commandLinesHolding(token), way).toEqual([]);
        expect(server.stderr(), way).not.toMatch(/warning/);
      } finally {
        expect((await server.stop()).code, way).toBe(0);
      }
    }
  }, 120_000);

  it("--token T anyway: a warning, and once it listens no command line holds it; a --token-file others may read is refused", async () => {
    const token = fresh("mcp-token");
    const server = await mcp(["--token", token], sb.env);
    try {
      expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8")).toMatch(/mcp --http --port 0 --token \*\*\*/);
      expect(commandLinesHolding(token)).toEqual([]);
      expect(server.stderr()).toMatch(/^svc mcp: warning: --token on the command line: any local user could read it there while svc started \(now hidden\); give SVC_MCP_TOKEN or --token-file FILE/m);
      expect(server.stderr()).not.toContain(token);
      expect(await mcpStatus(server.url, token)).not.toBe(401);
    } finally {
      await server.stop();
    }
    const open = secretFile(sb, "token", token, 0o640);
    const r = await svc(["mcp", "--http", "--port", "0", "--token-file", open], sb.env);
    expect(r.code).toBe(2);
    expect(expectOneLine(r.stderr)).toBe(`svc: --token-file: ${open} is open to group or others (mode 0640); chmod 600 ${open}`);
  }, 60_000);
});
