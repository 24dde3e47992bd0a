/**
 * Warm browsers (`warmBrowsers`): the server keeps Chromes started with its default options; a session
 * with those options takes one (the Chrome that was already running becomes the session's), a replacement
 * starts at once, other options launch their own, and closing the server ends the warm ones too.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";

const KEY = "svc-pool-key-12345678";
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Chrome main processes started by this process (chrome-launcher spawns them as our children). */
function chromeChildren(): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
      if (ppid === process.pid && cmd.includes("--user-data-dir=") && !cmd.includes("--type=")) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Running, not a zombie waiting to be reaped (signal 0 succeeds on those). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function call(server: RunningServer, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-bb-api-key": KEY, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

describe("warm browsers", () => {
  it("a session takes the warm Chrome, a replacement starts, other options launch their own; close ends all", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "svc-pool-"));
    dirs.push(cacheDir);
    expect(chromeChildren()).toEqual([]);
    const server = await startServer({ port: 0, apiKeys: [KEY], cacheDir, warmBrowsers: 1, launch: { executablePath: CHROMIUM } });
    try {
      const [warm] = await waitFor(() => (chromeChildren().length === 1 ? chromeChildren() : undefined));

      const session = await call(server, "/sessions", {});
      // The warm Chrome is now the session's; the pool starts another.
      const [, replacement] = await waitFor(() => {
        const now = chromeChildren();
        return now.length === 2 && now.includes(warm!) ? [warm, now.find((p) => p !== warm)] : undefined;
      });

      // A viewport of its own cannot use the pool: a third Chrome.
      const custom = await call(server, "/sessions", { browserSettings: { viewport: { width: 800, height: 600 } } });
      expect(chromeChildren()).toHaveLength(3);

      // Releasing the first session ends exactly the Chrome that was warm before it was asked for.
      await call(server, `/sessions/${String(session.id)}`, { status: "REQUEST_RELEASE" });
      await waitFor(() => !running(warm!));
      expect(running(replacement!)).toBe(true);
      await call(server, `/sessions/${String(custom.id)}`, { status: "REQUEST_RELEASE" });
    } finally {
      await server.close();
    }
    await waitFor(() => chromeChildren().length === 0).catch((e: Error) => {
      throw new Error(`${e.message}: ${chromeChildren().map((p) => `${p}: ${readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ").slice(0, 300)}`).join("\n")}`);
    });
  });

  it("a warm Chrome that failed to start is started again by the pool itself, not only when a session next asks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-pool-"));
    dirs.push(dir);
    // Chrome's first start fails (a loaded machine, a launch that timed out); later ones are Chrome.
    const marker = join(dir, "failed-once");
    const chrome = join(dir, "chrome-once.sh");
    writeFileSync(chrome, `#!/bin/sh\nif [ ! -e '${marker}' ]; then : > '${marker}'; exit 1; fi\nexec '${CHROMIUM}' "$@"\n`);
    chmodSync(chrome, 0o700);
    expect(chromeChildren()).toEqual([]);
    const server = await startServer({ port: 0, apiKeys: [KEY], cacheDir: dir, warmBrowsers: 1, launch: { executablePath: chrome } });
    try {
      await waitFor(() => existsSync(marker));
      await waitFor(() => chromeChildren().length === 1);
    } finally {
      await server.close();
    }
    await waitFor(() => chromeChildren().length === 0);
  });
});
