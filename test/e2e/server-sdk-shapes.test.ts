/**
 * `svc serve` through `@browserbasehq/sdk` itself, on the shapes its types require: a region name it knows
 * (default us-west-2, a requested one echoed, any other a 400 naming the four), seleniumRemoteUrl and
 * signingKey on the create response (the URL answering 501 naming the call), search results without the
 * optional fields the backend had no value for, and the key's project with its usage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase from "@browserbasehq/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyFingerprint, startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { markTmpdir } from "../support/process.js";

const KEY = "sdk-shapes-key-0001";
const OTHER = "sdk-shapes-key-0002";
const base = mkdtempSync(join(tmpdir(), "svc-sdk-shapes-"));
let restoreTmp = (): void => {};

let server: RunningServer;
let searx: Server;
let bb: Browserbase;
let other: Browserbase;

beforeAll(async () => {
  restoreTmp = markTmpdir(base);
  // A SearXNG-format stub: one result with every field, one with a URL and a title only.
  searx = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        results: [
          { url: "https://a.example.com/full", title: "Full", content: "x", author: "Ada", img_src: "https://a.example.com/i.png", publishedDate: "2024-05-01T10:00:00" },
          { url: "https://b.example.com/bare", title: "Bare" },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => searx.listen(0, "127.0.0.1", resolve));
  server = await startServer({
    port: 0,
    apiKeys: [KEY, OTHER],
    cacheDir: join(base, "cache"),
    launch: { executablePath: CHROMIUM, headless: true },
    searchUrl: `http://127.0.0.1:${(searx.address() as AddressInfo).port}`,
  });
  bb = new Browserbase({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
  other = new Browserbase({ apiKey: OTHER, baseURL: server.url, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => (searx ? searx.close(() => resolve()) : resolve()));
  restoreTmp();
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

describe("sessions as the SDK types them", () => {
  it("answers a region name the SDK knows: us-west-2 by default, the requested one echoed", async () => {
    const plain = await bb.sessions.create();
    try {
      expect(plain.region).toBe("us-west-2");
      expect((await bb.sessions.retrieve(plain.id)).region).toBe("us-west-2");
    } finally {
      await bb.sessions.update(plain.id, { status: "REQUEST_RELEASE" });
    }
    const eu = await bb.sessions.create({ region: "eu-central-1" });
    try {
      expect(eu.region).toBe("eu-central-1");
      expect((await bb.sessions.list()).find((s) => s.id === eu.id)?.region).toBe("eu-central-1");
    } finally {
      await bb.sessions.update(eu.id, { status: "REQUEST_RELEASE" });
    }
  });

  it("refuses any other region with a 400 naming the four", async () => {
    const err = await bb.sessions.create({ region: "local" as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Browserbase.BadRequestError);
    expect((err as Error).message).toContain("region: expected one of us-west-2, us-east-1, eu-central-1, ap-southeast-1");
  });

  it("gives seleniumRemoteUrl and signingKey on create; the Selenium URL answers 501 naming the call", async () => {
    const s = await bb.sessions.create();
    try {
      expect(s.seleniumRemoteUrl).toBe(`${server.url}/v1/selenium/${s.id}`);
      expect(s.signingKey).toMatch(/^[\w-]{20,}$/);
      expect(s.connectUrl).toMatch(/^ws:\/\//);
      // A WebDriver client's first call, with only the signing key (no API key): 501, not 401 or 404.
      const res = await fetch(`${s.seleniumRemoteUrl}/session`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bb-signing-key": s.signingKey },
        body: JSON.stringify({ capabilities: {} }),
      });
      expect(res.status).toBe(501);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe("NOT_IMPLEMENTED");
      expect(body.message).toContain(`POST /v1/selenium/${s.id}/session`);
      expect(body.message).toContain("connectUrl");
    } finally {
      await bb.sessions.update(s.id, { status: "REQUEST_RELEASE" });
    }
  });
});

describe("search results", () => {
  it("leaves out author, image and publishedDate when the backend had none (the SDK types them optional)", async () => {
    const r = await bb.search.web({ query: "shapes", numResults: 2 });
    expect(r.results).toHaveLength(2);
    const [full, bare] = r.results;
    expect(full).toMatchObject({ title: "Full", author: "Ada", image: "https://a.example.com/i.png" });
    expect(full!.publishedDate).toMatch(/^2024-05-01/);
    expect(bare).toMatchObject({ title: "Bare", url: "https://b.example.com/bare" });
    for (const field of ["author", "image", "publishedDate"]) expect(bare, field).not.toHaveProperty(field);
    expect(Object.values(bare!)).not.toContain(null);
  });
});

describe("projects", () => {
  it("lists the key's one project, the projectId its sessions carry; another id is a 404", async () => {
    const projects = await bb.projects.list();
    expect(projects).toHaveLength(1);
    const p = projects[0]!;
    expect(p.id).toBe(keyFingerprint(KEY));
    expect(p).toMatchObject({ ownerId: p.id, concurrency: 8, defaultTimeout: 3600 });
    expect(typeof p.name).toBe("string");
    expect(Number.isNaN(Date.parse(p.createdAt))).toBe(false);
    expect(await bb.projects.retrieve(p.id)).toEqual(p);
    const s = await bb.sessions.create();
    await bb.sessions.update(s.id, { status: "REQUEST_RELEASE" });
    expect(s.projectId).toBe(p.id);
    // The other key's project does not exist for this key.
    const theirs = (await other.projects.list())[0]!;
    expect(theirs.id).not.toBe(p.id);
    await expect(bb.projects.retrieve(theirs.id)).rejects.toBeInstanceOf(Browserbase.NotFoundError);
    await expect(bb.projects.usage(theirs.id)).rejects.toBeInstanceOf(Browserbase.NotFoundError);
  });

  it("measures usage from this server's sessions: browser minutes per session rounded up, no proxy bytes", async () => {
    const fresh = new Browserbase({ apiKey: OTHER, baseURL: server.url, maxRetries: 0 });
    const id = (await fresh.projects.list())[0]!.id;
    const before = await fresh.projects.usage(id);
    expect(before.proxyBytes).toBe(0);
    const a = await fresh.sessions.create();
    // A running session counts from its start.
    expect((await fresh.projects.usage(id)).browserMinutes).toBe(before.browserMinutes + 1);
    const b = await fresh.sessions.create();
    expect((await fresh.projects.usage(id)).browserMinutes).toBe(before.browserMinutes + 2);
    await fresh.sessions.update(a.id, { status: "REQUEST_RELEASE" });
    await fresh.sessions.update(b.id, { status: "REQUEST_RELEASE" });
    // Ended ones stay counted once their Chrome is gone (and are not counted twice meanwhile).
    await waitFor(async () => (await fresh.projects.usage(id)).browserMinutes === before.browserMinutes + 2);
    expect(await fresh.projects.usage(id)).toEqual({ browserMinutes: before.browserMinutes + 2, proxyBytes: 0 });
  });
});
