import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError, ServiceStateError } from "../../src/errors.js";
import { ensureStateDir, resolveStateDir, withFileLock, writeStateFile } from "../../src/store/files.js";
import { DEFAULT_LOG_ID, appendHistory, historyPath, listHistoryIds, readHistory } from "../../src/store/history.js";
import { addMetrics, listMetricsIds, readMetrics } from "../../src/store/metrics.js";
import {
  type SessionRecord,
  getSession,
  heartbeatPath,
  isAlive,
  listSessions,
  newSessionId,
  pidAlive,
  pidBelongsToSession,
  removeSession,
  saveSession,
  touchHeartbeat,
  touchSession,
} from "../../src/store/session-records.js";
import { MAX_SOCKET_PATH, hostSocketPath } from "../../src/store/state-dir.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-store-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function record(over: Partial<SessionRecord> = {}): SessionRecord {
  const id = over.id ?? newSessionId(root);
  return {
    id,
    wsEndpoint: "ws://127.0.0.1:1/devtools/browser/abc",
    port: 1,
    pid: 999_999_999,
    userDataDir: join(root, "profile"),
    headless: true,
    createdAt: "2025-01-01T00:00:00.000Z",
    lastUsedAt: "2025-01-01T00:00:00.000Z",
    idleMs: 60_000,
    heartbeatFile: heartbeatPath(root, id),
    ...over,
  };
}

describe("state dir", () => {
  it("resolves SVC_STATE_DIR, then XDG_STATE_HOME/svc, then ~/.local/state/svc", () => {
    expect(resolveStateDir({ SVC_STATE_DIR: "/a/b", XDG_STATE_HOME: "/x" })).toBe("/a/b");
    expect(resolveStateDir({ XDG_STATE_HOME: "/x" })).toBe("/x/svc");
    expect(resolveStateDir({})).toBe(join(homedir(), ".local", "state", "svc"));
  });

  it("is created with mode 0700", () => {
    const dir = join(root, "state", "nested");
    ensureStateDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("an unwritable state dir is a ServiceStateError naming the path", () => {
    expect(() => ensureStateDir("/proc/x")).toThrow(ServiceStateError);
    expect(() => ensureStateDir("/proc/x")).toThrow(/\/proc\/x/);
    const file = join(root, "file");
    writeFileSync(file, "");
    expect(() => ensureStateDir(join(file, "sub"))).toThrow(/cannot use state directory .*file\/sub: a parent is not a directory/);
  });

  it.skipIf(process.getuid?.() === 0)("a read-only existing dir is rejected", () => {
    const dir = join(root, "ro");
    ensureStateDir(dir);
    chmodSync(dir, 0o500);
    expect(() => ensureStateDir(dir)).toThrow(ServiceStateError);
    chmodSync(dir, 0o700);
  });
});

describe("atomic writes", () => {
  it("replace the target and leave no temp files", () => {
    const path = join(root, "x.json");
    writeStateFile(path, "one");
    writeStateFile(path, "two");
    expect(readFileSync(path, "utf8")).toBe("two");
    expect(readdirSync(root)).toEqual(["x.json"]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("fail with ServiceStateError and no temp file when the dir is missing", () => {
    expect(() => writeStateFile(join(root, "missing", "x.json"), "a")).toThrow(ServiceStateError);
    expect(readdirSync(root)).toEqual([]);
  });

  it("a lock serializes and is released after an exception", () => {
    const target = join(root, "m.json");
    expect(() =>
      withFileLock(target, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(existsSync(`${target}.lock`)).toBe(false);
    expect(withFileLock(target, () => 42)).toBe(42);
  });

  it("a stale lock (crashed holder) is taken over", () => {
    const target = join(root, "m.json");
    writeFileSync(`${target}.lock`, "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${target}.lock`, old, old);
    expect(withFileLock(target, () => "ok", 1_000)).toBe("ok");
  });
});

describe("sessions", () => {
  it("save, get, list (most recently used first), remove", () => {
    const a = saveSession(record({ lastUsedAt: "2025-01-01T00:00:01.000Z" }), root);
    const b = saveSession(record({ lastUsedAt: "2025-01-01T00:00:02.000Z" }), root);
    expect(getSession(a.id, root)).toEqual(a);
    expect(listSessions(root).map((r) => r.id)).toEqual([b.id, a.id]);
    touchHeartbeat(a.heartbeatFile);
    removeSession(a.id, root);
    expect(getSession(a.id, root)).toBeUndefined();
    expect(existsSync(a.heartbeatFile)).toBe(false);
    expect(listSessions(root).map((r) => r.id)).toEqual([b.id]);
  });

  it("remove takes the host's socket wherever it is: in the state dir, or under /tmp when the state dir is too deep", () => {
    // The state dir's own path, short or long whatever TMPDIR is: a socket path is measured from it.
    const deep = join(root, "d".repeat(MAX_SOCKET_PATH));
    for (const dir of [root, deep]) {
      const a = saveSession(record({ id: newSessionId(dir) }), dir);
      const short = Buffer.byteLength(join(dir, "sessions", `${a.id}.sock`)) <= MAX_SOCKET_PATH;
      if (dir === deep) expect(short).toBe(false);
      // The host's socket, as the host makes it (a file stands in for the socket: removal is what is tested).
      const sock = hostSocketPath(dir, a.id, true);
      writeFileSync(sock, "");
      expect(sock.startsWith(dir)).toBe(short);
      removeSession(a.id, dir);
      expect(existsSync(sock), sock).toBe(false);
    }
  });

  it("records are one JSON file each, mode 0600, no temp files left", () => {
    const a = saveSession(record(), root);
    saveSession({ ...a, lastUsedAt: "2026-01-01T00:00:00.000Z" }, root);
    expect(readdirSync(join(root, "sessions"))).toEqual([`${a.id}.json`]);
    expect(statSync(join(root, "sessions", `${a.id}.json`)).mode & 0o777).toBe(0o600);
  });

  it("an empty or missing state dir lists nothing", () => {
    expect(listSessions(join(root, "nope"))).toEqual([]);
    expect(getSession("abc", join(root, "nope"))).toBeUndefined();
  });

  it("corrupt records are skipped by list and reported by get", () => {
    const a = saveSession(record(), root);
    writeFileSync(join(root, "sessions", "bad.json"), "{not json");
    expect(listSessions(root).map((r) => r.id)).toEqual([a.id]);
    expect(() => getSession("bad", root)).toThrow(ServiceStateError);
  });

  it("ids that could escape the directory are rejected", () => {
    expect(() => getSession("../etc", root)).toThrow(ServiceInvalidArgumentError);
    expect(() => getSession("a/b", root)).toThrow(ServiceInvalidArgumentError);
    expect(() => getSession("", root)).toThrow(ServiceInvalidArgumentError);
  });

  it("touchSession moves lastUsedAt and the heartbeat mtime, but does not resurrect a removed record", () => {
    const a = saveSession(record(), root);
    touchHeartbeat(a.heartbeatFile);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(a.heartbeatFile, old, old);
    const t = touchSession(a, root);
    expect(t.lastUsedAt > a.lastUsedAt).toBe(true);
    expect(getSession(a.id, root)?.lastUsedAt).toBe(t.lastUsedAt);
    expect(Date.now() - statSync(a.heartbeatFile).mtimeMs).toBeLessThan(10_000);
    removeSession(a.id, root);
    touchSession(a, root);
    expect(getSession(a.id, root)).toBeUndefined();
    // A removed heartbeat means "ended": touching must not recreate it (the reaper would wait on it).
    expect(existsSync(a.heartbeatFile)).toBe(false);
  });

  it("pidAlive / pidBelongsToSession", () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(999_999_999)).toBe(false);
    expect(pidAlive(0)).toBe(false);
    if (process.platform === "linux") {
      // This test process is not a Chrome with that profile.
      expect(pidBelongsToSession({ pid: process.pid, userDataDir: "/nope" })).toBe(false);
    }
  });

  describe("isAlive", () => {
    let server: Server;
    let port: number;
    let browserId = "abc";
    beforeEach(async () => {
      server = createServer((req, res) => {
        if (req.url === "/json/version") {
          res.end(JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/${browserId}` }));
        } else res.end("?");
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      port = (server.address() as AddressInfo).port;
    });
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it("needs a live pid and the same browser answering on the endpoint", async () => {
      const ws = `ws://127.0.0.1:${port}/devtools/browser/abc`;
      expect(await isAlive(record({ pid: process.pid, wsEndpoint: ws }))).toBe(true);
      expect(await isAlive(record({ pid: 999_999_999, wsEndpoint: ws }))).toBe(false);
      browserId = "other";
      expect(await isAlive(record({ pid: process.pid, wsEndpoint: ws }))).toBe(false);
      expect(await isAlive(record({ pid: process.pid, wsEndpoint: "ws://127.0.0.1:1/devtools/browser/abc" }))).toBe(false);
    });

    it("a dead child pid is not alive", async () => {
      const child = spawn(process.execPath, ["-e", "0"]);
      await new Promise((r) => child.on("exit", r));
      expect(await isAlive(record({ pid: child.pid!, wsEndpoint: `ws://127.0.0.1:${port}/devtools/browser/abc` }))).toBe(false);
    });
  });
});

describe("history", () => {
  it("appends JSONL per session and reads it back in order", () => {
    const e = (method: string, i: number) => ({ method, parameters: { i }, result: { ok: true }, timestamp: `t${i}` });
    appendHistory("s1", [e("navigate", 1), e("act", 2)], root);
    appendHistory("s1", [e("extract", 3)], root);
    appendHistory(DEFAULT_LOG_ID, [e("extract", 9)], root);
    expect(readHistory("s1", root)?.map((x) => x.method)).toEqual(["navigate", "act", "extract"]);
    expect(readFileSync(historyPath("s1", root), "utf8").trim().split("\n")).toHaveLength(3);
    expect(readHistory(DEFAULT_LOG_ID, root)).toHaveLength(1);
    expect(readHistory("none", root)).toBeUndefined();
    expect(new Set(listHistoryIds(root))).toEqual(new Set(["s1", DEFAULT_LOG_ID]));
  });

  it("skips a line cut short by a crash", () => {
    appendHistory("s1", [{ method: "act", parameters: {}, result: {}, timestamp: "t" }], root);
    writeFileSync(historyPath("s1", root), readFileSync(historyPath("s1", root), "utf8") + '{"method":"ex', { flag: "w" });
    expect(readHistory("s1", root)).toHaveLength(1);
  });

  it("appending nothing creates nothing", () => {
    appendHistory("s1", [], root);
    expect(existsSync(join(root, "history"))).toBe(false);
  });
});

describe("metrics", () => {
  it("sums numeric counters across commands and persists them", () => {
    addMetrics("s1", { actPromptTokens: 10, totalPromptTokens: 10, note: "ignored" }, root);
    const m = addMetrics("s1", { actPromptTokens: 5, totalPromptTokens: 5, actInferenceTimeMs: 7 }, root);
    expect(m.commands).toBe(2);
    expect(m.metrics).toEqual({ actPromptTokens: 15, totalPromptTokens: 15, actInferenceTimeMs: 7 });
    expect(readMetrics("s1", root)).toEqual(m);
    expect(readMetrics("s2", root)).toBeUndefined();
    expect(listMetricsIds(root)).toEqual(["s1"]);
    expect(readdirSync(join(root, "metrics"))).toEqual(["s1.json"]);
  });

  it("concurrent writers do not lose updates", async () => {
    const script = `
      import { addMetrics } from ${JSON.stringify(new URL("../../src/store/metrics.ts", import.meta.url).pathname)};
      for (let i = 0; i < 20; i++) addMetrics("s1", { totalPromptTokens: 1 }, ${JSON.stringify(root)});
    `;
    const run = () =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "inherit" });
        child.on("exit", (code) => resolve(code ?? 1));
      });
    expect(await Promise.all([run(), run(), run()])).toEqual([0, 0, 0]);
    expect(readMetrics("s1", root)?.metrics.totalPromptTokens).toBe(60);
    expect(readMetrics("s1", root)?.commands).toBe(60);
  }, 30_000);
});
