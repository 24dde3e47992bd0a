/**
 * A key's downloads across its sessions on a two-key `svc serve`: past `downloadsMaxBytesPerKey` the oldest ended
 * session's downloads go first (its zip then 410), and with only running sessions holding the total a new download is
 * cancelled and logged; another key is unaffected. With a short `artifactsTtlS` an ended session's folder soon leaves
 * the disk (polled, bounded).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { keyFingerprint, startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { EVENT_WAIT_MS } from "../support/timing.js";
import { markTmpdir } from "../support/process.js";

const KEY = "quota-key-aaaaaaaa";
const OTHER_KEY = "quota-key-bbbbbbbb";
const PER_KEY = 100_000;
const base = mkdtempSync(join(tmpdir(), "svc-artifacts-quota-"));
let restoreTmp = (): void => {};
const logs: string[] = [];
const connections: CdpConnection[] = [];

let site: FixtureServer;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  site = await startFixtureServer();
});

afterAll(async () => {
  for (const c of connections) await c.close().catch(() => {});
  await site?.close();
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

async function serve(name: string, extra: Partial<Parameters<typeof startServer>[0]>): Promise<RunningServer> {
  return startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY],
    cacheDir: join(base, name, "cache"),
    dataDir: join(base, name, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${site.port}`, `127.0.0.1:${site.port}`],
    log: (line) => logs.push(line),
    ...extra,
  });
}

/** A session of `client`'s key, with a tab on the fixture site driven over connectUrl; `download` clicks a link to a file of `bytes`. */
async function session(client: Browserbase) {
  const s = await client.sessions.create({ projectId: "p", keepAlive: true });
  const cdp = await CdpConnection.connect(s.connectUrl);
  connections.push(cdp);
  const { targetId } = await cdp.root.send("Target.createTarget", { url: site.url("downloads.html") });
  const { sessionId } = await cdp.root.send("Target.attachToTarget", { targetId, flatten: true });
  const page = cdp.session(sessionId)!;
  const evaluate = async (expression: string) => (await page.send("Runtime.evaluate", { expression, returnByValue: true })).result.value as unknown;
  await waitFor(async () => (await evaluate("document.readyState === 'complete' && !!document.getElementById('big')")) === true);
  return {
    id: s.id,
    download: (name: string, bytes: number) => evaluate(`{ const a = document.createElement('a'); a.href = '/download?name=${name}&bytes=${bytes}'; document.body.append(a); a.click() }`),
    release: async () => {
      await cdp.close();
      await client.sessions.update(s.id, { status: "REQUEST_RELEASE", projectId: "p" });
      await waitFor(async () => (await client.sessions.retrieve(s.id)).status === "COMPLETED");
    },
  };
}

const folderOf = (server: string, key: string, id: string) => join(base, server, "data", "downloads", keyFingerprint(key), id);
const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.endsWith(".crdownload")) : []);

describe("downloads per key (downloadsMaxBytesPerKey)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve("quota", { downloadsMaxBytesPerKey: PER_KEY, downloadsMaxBytesPerSession: 80_000 });
  }, 60_000);
  afterAll(() => server?.close());

  it("the oldest ended session's downloads go first (410); then, with only running sessions, a download is cancelled and logged", async () => {
    const client = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const first = await session(client);
    await first.download("first.bin", 60_000);
    await waitFor(() => filesIn(folderOf("quota", KEY, first.id)).includes("first.bin"), EVENT_WAIT_MS, 100);
    await first.release();
    expect(filesIn(folderOf("quota", KEY, first.id))).toEqual(["first.bin"]);

    const second = await session(client);
    await second.download("second.bin", 60_000);
    await waitFor(() => filesIn(folderOf("quota", KEY, second.id)).includes("second.bin"), EVENT_WAIT_MS, 100);
    // 60,000 + 60,000 > 100,000: the ended session's file made room (its folder's removal may finish just after
    // the new file lands: waited for, bounded).
    await waitFor(() => !existsSync(folderOf("quota", KEY, first.id)), EVENT_WAIT_MS, 100);
    await expect(client.sessions.downloads.list(first.id)).rejects.toMatchObject({ status: 410 });
    expect(logs.some((l) => /ended session's downloads were deleted to make room/.test(l))).toBe(true);

    // Nothing ended is left to delete: another running session's download (within its own per-session
    // bound) would take the key past its total, so it is refused.
    const third = await session(client);
    await third.download("third.bin", 60_000);
    const refused = await waitFor(async () => {
      const list = (await client.sessions.logs.list(third.id)) as unknown as Array<{ method: string; request?: { params: Record<string, unknown> } }>;
      return list.find((e) => e.method === "svc.downloadRefused");
    }, EVENT_WAIT_MS, 200);
    expect(refused.request?.params.reason).toMatch(/API key's downloads would pass 100000 bytes \(--downloads-max-key\)/);
    expect(logs.some((l) => new RegExp(`session ${third.id} .*a download was refused`).test(l))).toBe(true);
    await waitFor(async () => (await client.sessions.logs.list(third.id)).some((e) => e.method === "Browser.downloadProgress"), EVENT_WAIT_MS, 200);
    expect(filesIn(folderOf("quota", KEY, third.id))).toEqual([]);
    expect(Object.keys(unzipSync(new Uint8Array(await (await client.sessions.downloads.list(second.id)).arrayBuffer())))).toEqual(["second.bin"]);

    // Another key has a total of its own.
    const theirs = await session(new Browserbase({ apiKey: OTHER_KEY, baseURL: server.url, maxRetries: 0 }));
    await theirs.download("theirs.bin", 60_000);
    await waitFor(() => filesIn(folderOf("quota", OTHER_KEY, theirs.id)).includes("theirs.bin"), EVENT_WAIT_MS, 100);
    expect(filesIn(folderOf("quota", KEY, second.id))).toEqual(["second.bin"]);
  }, 120_000);
});

describe("how long an ended session's files live (artifactsTtlS)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve("ttl", { artifactsTtlS: 1 });
  }, 60_000);
  afterAll(() => server?.close());

  it("an ended session's downloads folder is deleted from the disk after the TTL, and its zip is gone", async () => {
    const client = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const s = await session(client);
    await s.download("report.txt", 1_000);
    const folder = folderOf("ttl", KEY, s.id);
    await waitFor(() => filesIn(folder).includes("report.txt"), EVENT_WAIT_MS, 100);
    await s.release();
    await waitFor(() => !existsSync(folder), EVENT_WAIT_MS, 100);
    await expect(client.sessions.downloads.list(s.id)).rejects.toMatchObject({ status: 404 });
  }, 60_000);
});
