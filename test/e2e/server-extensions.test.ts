/**
 * `svc serve`'s extensions API with `@browserbasehq/sdk` as the client: upload a zipped extension, read
 * and delete it, start a session with `extensionId` (top level or browserSettings) whose Chrome runs it
 * (the fixture extension marks every page), and the 400s a bad upload gets; another key's id is a 404.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase, { toFile } from "@browserbasehq/sdk";
import { strToU8, zipSync } from "fflate";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_EXTENSIONS_PER_KEY } from "../../src/server/features/extensions.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { zipExtension, type ZipOptions } from "../support/extensions.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { chromePidsOf, markTmpdir } from "../support/process.js";

const KEY = "ext-key-one-0001";
const OTHER_KEY = "ext-key-two-0002";
const THIRD_KEY = "ext-key-three-0003";
const QUOTA_KEY = "ext-key-quota-0004";
/** The server's unpacked-bytes quota per key (extensionsMaxBytesPerKey), small enough for a test to pass. */
const QUOTA = 400_000;
const base = mkdtempSync(join(tmpdir(), "svc-server-ext-"));
let restoreTmp = (): void => {};

let fixtures: FixtureServer;
let server: RunningServer;
let bb: Browserbase;
let other: Browserbase;

const markerZip = (opts: ZipOptions = {}) => zipExtension("marker", opts);

async function upload(zip: Uint8Array, client = bb, name = "marker.zip") {
  return client.extensions.create({ file: await toFile(Buffer.from(zip), name) });
}

/** A raw upload: status and body (for the 400s, whose messages the SDK wraps). */
async function rawUpload(body: BodyInit, contentType?: string): Promise<{ status: number; body: { message?: string; code?: string } }> {
  const res = await fetch(`${server.url}/v1/extensions`, { method: "POST", headers: { "x-bb-api-key": KEY, ...(contentType ? { "content-type": contentType } : {}) }, body });
  return { status: res.status, body: (await res.json()) as { message?: string } };
}

function form(zip: Uint8Array, field = "file"): FormData {
  const f = new FormData();
  f.set(field, new Blob([zip as Uint8Array<ArrayBuffer>], { type: "application/zip" }), "x.zip");
  return f;
}

/** Whether a fixture page, opened in the session's Chrome over connectUrl, carries the extension's mark. */
async function markOf(connectUrl: string): Promise<string | undefined> {
  const browser = await chromium.connectOverCDP(connectUrl);
  try {
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(fixtures.url("forms.html"));
    // The content script runs at document_start; a moment for a slow machine anyway.
    await page.waitForFunction(() => document.documentElement.dataset.svcExtension === "on", undefined, { timeout: 5000 }).catch(() => {});
    return await page.evaluate(() => document.documentElement.dataset.svcExtension);
  } finally {
    await browser.close();
  }
}

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  fixtures = await startFixtureServer();
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER_KEY, THIRD_KEY, QUOTA_KEY],
    extensionsMaxBytesPerKey: QUOTA,
    cacheDir: join(base, "cache"),
    dataDir: join(base, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    allowNet: [`localhost:${fixtures.port}`, `127.0.0.1:${fixtures.port}`],
  });
  bb = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
  other = new Browserbase({ apiKey: OTHER_KEY, baseURL: server.url, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await fixtures?.close();
  try {
    await waitFor(() => chromePidsOf(base).length === 0).catch(() => {});
  } finally {
    restoreTmp();
    rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  }
});

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

describe("extensions API", () => {
  it("uploads with the SDK, reads it back, and deletes it (Content-Type: null, as Stagehand 4.x sends it)", async () => {
    const ext = await upload(markerZip(), bb, "marker.zip");
    expect(ext).toMatchObject({ fileName: "marker.zip", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(Date.parse(ext.createdAt)).toBeGreaterThan(0);
    expect(typeof ext.projectId).toBe("string");
    expect(await bb.extensions.retrieve(ext.id)).toEqual(ext);
    // Stored unpacked, per key.
    const owners = readdirSync(join(base, "data", "extensions"));
    expect(owners).toHaveLength(1);
    expect(readdirSync(join(base, "data", "extensions", owners[0]!, ext.id)).sort()).toEqual(["content.js", "manifest.json", "worker.js"]);

    await expect(other.extensions.retrieve(ext.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.extensions.delete(ext.id)).rejects.toMatchObject({ status: 404 });
    await bb.extensions.delete(ext.id, { headers: { "Content-Type": null } });
    await expect(bb.extensions.retrieve(ext.id)).rejects.toMatchObject({ status: 404 });
    expect(readdirSync(join(base, "data", "extensions", owners[0]!))).toEqual([]);
  });

  // One test for both (each session start loads the extension through chrome://extensions: costly).
  it("a session with extensionId runs the extension; one without does not; browserSettings.extensionId works too; deleted while they run, it keeps working there: each session loads its own copy", async () => {
    const ext = await upload(markerZip({ folder: "marker" }));
    const withIt = await bb.sessions.create({ extensionId: ext.id });
    const without = await bb.sessions.create({});
    const nested = await bb.sessions.create({ browserSettings: { extensionId: ext.id } });
    const owner = readdirSync(join(base, "data", "extensions"))[0]!;
    const ownerDir = join(base, "data", "extensions", owner);
    try {
      // Deleted before anything connects (a session whose last client left ends after the disconnect grace).
      expect(readdirSync(ownerDir)).toEqual(expect.arrayContaining([`.run-${withIt.id}`, `.run-${nested.id}`]));
      await bb.extensions.delete(ext.id);
      await expect(bb.extensions.retrieve(ext.id)).rejects.toMatchObject({ status: 404 });
      expect(readdirSync(ownerDir)).not.toContain(ext.id);

      expect(await markOf(withIt.connectUrl)).toBe("on");
      expect(await markOf(without.connectUrl)).toBeUndefined();
      expect(await markOf(nested.connectUrl)).toBe("on");
    } finally {
      for (const s of [withIt, without, nested]) await bb.sessions.update(s.id, { status: "REQUEST_RELEASE" });
    }
    await waitFor(() => !readdirSync(ownerDir).some((name) => name === `.run-${withIt.id}` || name === `.run-${nested.id}`));
  });

  it("an unknown or another key's extensionId is a 404 before any Chrome starts", async () => {
    const ext = await upload(markerZip());
    await expect(other.sessions.create({ extensionId: ext.id })).rejects.toMatchObject({ status: 404, message: expect.stringContaining("extensionId") });
    await expect(bb.sessions.create({ extensionId: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ status: 404 });
    await expect(bb.sessions.create({ browserSettings: { extensionId: "nope" } })).rejects.toMatchObject({ status: 404, message: expect.stringContaining("browserSettings.extensionId") });
    expect((await bb.sessions.list({ status: "RUNNING" })).length).toBe(0);
  });
});

describe("how many a key keeps", () => {
  it(`at most ${MAX_EXTENSIONS_PER_KEY} per key: then 409 until one is deleted; other keys are not affected`, async () => {
    const third = new Browserbase({ apiKey: THIRD_KEY, baseURL: server.url, maxRetries: 0 });
    const zip = markerZip();
    const ids: string[] = [];
    for (let i = 0; i < MAX_EXTENSIONS_PER_KEY; i++) ids.push((await upload(zip, third)).id);
    await expect(upload(zip, third)).rejects.toMatchObject({ status: 409, message: expect.stringContaining(`keeps ${MAX_EXTENSIONS_PER_KEY} extensions already`) });
    expect((await upload(zip, bb)).id).toBeTruthy();
    await third.extensions.delete(ids[0]!);
    expect((await upload(zip, third)).id).toBeTruthy();
  });
});

describe("unpacked bytes a key keeps", () => {
  it("a small zip that unpacks large counts unpacked: past the key's quota, 409 EXTENSIONS_QUOTA naming it; a delete makes room", async () => {
    const quota = new Browserbase({ apiKey: QUOTA_KEY, baseURL: server.url, maxRetries: 0 });
    // 250 kB of one byte repeated: a zip of about a kilobyte.
    const inflating = markerZip({ extra: { "padding.bin": new Uint8Array(250_000).fill(65) } });
    expect(inflating.length).toBeLessThan(10_000);
    const first = await upload(inflating, quota);
    const refused = await upload(inflating, quota).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 409, error: { code: "EXTENSIONS_QUOTA", message: expect.stringContaining(`quota of ${QUOTA} bytes (--extensions-max-key)`) } });
    expect((await upload(inflating, bb)).id).toBeTruthy(); // another key's quota is its own
    await quota.extensions.delete(first.id);
    expect((await upload(inflating, quota)).id).toBeTruthy();
  });
});

describe("bad uploads: 400 naming what is wrong", () => {
  const cases: [string, () => Promise<{ status: number; body: { message?: string; code?: string } }>, RegExp][] = [
    ["not multipart", () => rawUpload(JSON.stringify({ file: "x" }), "application/json"), /multipart\/form-data/],
    ["no file field", () => rawUpload(form(markerZip(), "upload")), /^file: missing/],
    ["not a zip", () => rawUpload(form(strToU8("just some text, not an archive at all"))), /file: not a zip/],
    ["a damaged zip", () => rawUpload(form(markerZip().slice(0, 200))), /file: not a readable zip/],
    ["an entry with ..", () => rawUpload(form(markerZip({ extra: { "../escape.js": strToU8("x") } }))), /"\.\.\/escape\.js".*leave the extension's folder/],
    ["an absolute entry", () => rawUpload(form(zipWithName("/etc/evil.js"))), /absolute path/],
    ["a NUL in an entry", () => rawUpload(form(zipWithName("ev\0il.js"))), /NUL or backslash/],
    ["a 300-character name", () => rawUpload(form(markerZip({ extra: { [`d/${"n".repeat(300)}.js`]: strToU8("x") } }))), /"d\/n+….*longer than 255 bytes/],
    ["a 300-byte name in 150 characters", () => rawUpload(form(markerZip({ extra: { [`${"é".repeat(150)}.js`]: strToU8("x") } }))), /longer than 255 bytes/],
    ["a file beside a folder of the same name", () => rawUpload(form(markerZip({ extra: { a: strToU8("x"), "a/b.js": strToU8("y") } }))), /entry "a\/b\.js": needs a folder where entry "a" is a file/],
    ["a folder, then a file of the same name", () => rawUpload(form(markerZip({ extra: { "a/b.js": strToU8("y"), a: strToU8("x") } }))), /entry "a": a file where entry "a\/b\.js" needs a folder/],
    ["no manifest", () => rawUpload(form(zipSync({ "content.js": strToU8("1") }))), /no manifest\.json/],
    ["manifest not JSON", () => rawUpload(form(markerZip({ manifest: "{ not json" }))), /manifest\.json is not JSON/],
    ["manifest_version 2", () => rawUpload(form(markerZip({ manifest: { manifest_version: 2 } }))), /manifest_version 2 is not supported/],
    ["no name", () => rawUpload(form(markerZip({ manifest: { name: undefined } }))), /manifest\.json: name is missing/],
    ["no version", () => rawUpload(form(markerZip({ manifest: { version: "" } }))), /manifest\.json: version is missing/],
    ["too many entries", () => rawUpload(form(markerZip({ extra: Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`f${i}.txt`, strToU8("")])) }))), /more than 2000 entries/],
    ["a zip bomb", () => rawUpload(form(markerZip({ extra: { "big.bin": [new Uint8Array(65 * 1024 * 1024), { level: 9 }] } }))), /unpacks to more than 64 MiB/],
  ];
  for (const [name, send, message] of cases) {
    it(name, async () => {
      const r = await send();
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toMatch(message);
      expect(r.body).toMatchObject({ code: "INVALID_ARGUMENT" });
    });
  }

  it("nothing half-written is left behind by a refused upload", () => {
    // No folder at all (refused uploads run alone): nothing was written.
    const root = join(base, "data", "extensions");
    for (const owner of existsSync(root) ? readdirSync(root) : []) {
      expect(readdirSync(join(base, "data", "extensions", owner)).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
    }
  });
});

/** A zip whose one entry has exactly `name` (fflate's zipSync would not write an absolute path as given). */
function zipWithName(name: string): Uint8Array {
  const placeholder = "a".repeat(name.length);
  const zip = zipSync({ [placeholder]: strToU8("x") }, { level: 0 });
  const text = Buffer.from(zip);
  let at = text.indexOf(placeholder);
  while (at >= 0) {
    text.write(name, at, "latin1");
    at = text.indexOf(placeholder, at + 1);
  }
  return new Uint8Array(text);
}
