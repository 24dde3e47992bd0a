/**
 * Issue 21, Chrome's own pages out of a tenant's reach on an isolated (two-key) `svc serve`: tenant B's
 * extension, asking for no permission at all, moves B's tab to chrome://extensions/ (or chrome://version)
 * while B drives that tab over connectUrl — through the browser socket with a flattened session, with and
 * without target discovery, and through a page-level socket opened while the tab was at about:blank.
 * Through chrome://extensions B would turn on its extension's file access and read the server's disk;
 * through chrome://version it would read Chrome's command line. svc's own connection sees the navigation
 * start, closes the tab and refuses every message to it: no attempt succeeds, in repeated races too.
 * SystemInfo.getInfo (it answers with the command line) is refused like Browser.getBrowserCommandLine.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Browserbase, { toFile } from "@browserbasehq/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { zipExtension } from "../support/extensions.js";
import { type CdpReply, rawCdp } from "../support/raw-cdp.js";
import { expectNoChrome } from "../support/session-api.js";

const KEY_A = "webui-key-aaaaaaaaaa";
const KEY_B = "webui-key-bbbbbbbbbb";
const base = mkdtempSync(join(tmpdir(), "svc-security-webui-"));
const savedTmp = process.env.TMPDIR;
const HOSTNAME = readFileSync("/etc/hostname", "utf8").trim();
const logs: string[] = [];

let server: RunningServer;
let bb: Browserbase;
let extensionId = "";

type Cdp = Awaited<ReturnType<typeof rawCdp>>;
type TargetInfo = { targetId: string; type: string; url: string };

beforeAll(async () => {
  process.env.TMPDIR = base;
  server = await startServer({
    port: 0,
    apiKeys: [KEY_A, KEY_B],
    cacheDir: join(base, "cache"),
    dataDir: join(base, "data"),
    launch: { executablePath: CHROMIUM, headless: true },
    log: (line) => void logs.push(line),
  });
  bb = new Browserbase({ apiKey: KEY_B, baseURL: server.url, maxRetries: 0 });
  extensionId = (await bb.extensions.create({ file: await toFile(Buffer.from(zipExtension("tab-mover")), "ext.zip") })).id;
});

afterAll(async () => {
  await server?.close();
  await expectNoChrome(base);
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

interface Attack {
  sessionId: string;
  connectUrl: string;
  cdp: Cdp;
  /** The extension's service worker session, and the id Chrome gave the extension. */
  worker: string;
  chromeId: string;
  /** The session's about:blank tab. */
  tab: string;
  /** Calls one of the worker's functions (fixtures/extensions/tab-mover/worker.js). */
  call(expression: string): Promise<CdpReply>;
  targets(): Promise<TargetInfo[]>;
}

/** A session of B with the extension, B's raw CDP client on its connectUrl, the worker attached. */
async function attack<T>(fn: (a: Attack) => Promise<T>): Promise<T> {
  const session = await bb.sessions.create({ extensionId });
  const cdp = await rawCdp(session.connectUrl);
  try {
    const targets = async () => (await cdp.send("Target.getTargets")).result.targetInfos as TargetInfo[];
    let sw: TargetInfo | undefined;
    await waitFor(async () => (sw = (await targets()).find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://"))), 15_000);
    const worker = (await cdp.send("Target.attachToTarget", { targetId: sw!.targetId, flatten: true })).result.sessionId as string;
    const call = (expression: string) => cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, worker);
    await waitFor(async () => (await call("typeof moveTab")).result?.result?.value === "function", 15_000);
    const tab = (await targets()).find((t) => t.type === "page" && t.url === "about:blank");
    expect(tab).toBeDefined();
    return await fn({ sessionId: session.id, connectUrl: session.connectUrl, cdp, worker, chromeId: new URL(sw!.url).hostname, tab: tab!.targetId, call, targets });
  } finally {
    cdp.close();
    await bb.sessions.update(session.id, { status: "REQUEST_RELEASE" });
  }
}

/** What the tab's page runs: on chrome://extensions it turns the extension's file access on; on chrome://version it reads the page. */
const payload = (chromeId: string) =>
  `location.protocol !== "chrome:" ? "web" : location.host === "version" ? document.body.innerText : chrome.developerPrivate.updateExtensionConfiguration({ extensionId: ${JSON.stringify(chromeId)}, fileAccess: true }).then(() => "BREACH")`;
/** The same, but one that waits on a web page (a command still unanswered when the tab changes process). */
const sleeper = (chromeId: string) => `location.protocol !== "chrome:" ? new Promise(() => {}) : (${payload(chromeId)})`;

/**
 * Moves the tab to `url` with the extension while `send` blasts evaluates of the payload at it, until
 * the tab is gone or 10 s passed. Returns what every evaluate answered, and whether the tab was closed.
 */
async function race(a: Attack, url: string, send: (expression: string) => Promise<CdpReply>): Promise<{ answers: string[]; closed: boolean }> {
  const answers: string[] = [];
  const keep = (r: CdpReply) => void answers.push(r.error ? `error: ${r.error.message}` : String(r.result?.result?.value ?? r.result?.exceptionDetails?.exception?.description ?? JSON.stringify(r.result)));
  void send(sleeper(a.chromeId)).then(keep);
  const moved = a.call(`moveTab(${JSON.stringify(url)})`);
  const deadline = Date.now() + 10_000;
  let closed = false;
  while (Date.now() < deadline) {
    const batch = Array.from({ length: 5 }, () => send(payload(a.chromeId)).then(keep));
    await Promise.race([Promise.all(batch), new Promise((r) => setTimeout(r, 200))]);
    if (!(await a.targets()).some((t) => t.targetId === a.tab)) {
      closed = true;
      break;
    }
  }
  // chrome.tabs.update's promise may never settle once its tab is closed: its answer is not waited for.
  void moved;
  return { answers, closed };
}

/** What the extension can read of the server's disk now (its worker's fetch of file:///etc/hostname). */
async function diskRead(a: Attack): Promise<string> {
  return String((await a.call("readDisk()")).result?.result?.value);
}

function expectNoBreach(a: Attack, answers: string[]): void {
  const leaks = answers.filter((x) => x === "BREACH" || x.includes("--user-data-dir") || x.includes("Command Line"));
  expect(leaks, JSON.stringify(answers.slice(0, 5))).toEqual([]);
}

describe("a tenant tab moved to Chrome's own pages by the tenant's extension", () => {
  for (const discover of [false, true]) {
    it(`chrome://extensions through a flattened session ${discover ? "with" : "without"} target discovery: tab closed, every evaluate refused, the disk unread`, async () => {
      await attack(async (a) => {
        if (discover) await a.cdp.send("Target.setDiscoverTargets", { discover: true });
        const session = (await a.cdp.send("Target.attachToTarget", { targetId: a.tab, flatten: true })).result.sessionId as string;
        expect((await a.cdp.send("Runtime.evaluate", { expression: "location.href", returnByValue: true }, session)).result.result.value).toBe("about:blank");
        const { answers, closed } = await race(a, "chrome://extensions/", (expression) => a.cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, session));
        expectNoBreach(a, answers);
        expect(closed, JSON.stringify(answers.slice(-3))).toBe(true);
        expect((await a.call("fileAccess()")).result.result.value).toBe(false);
        expect(await diskRead(a)).not.toContain(HOSTNAME);
        const after = await a.cdp.send("Runtime.evaluate", { expression: "1" }, session);
        expect(after.error?.message).toMatch(/refused by svc|No session|not found/i);
        expect(logs.some((l) => l.includes(a.sessionId) && /chrome:\/\/extensions/.test(l))).toBe(true);
      });
    });
  }

  it("chrome://extensions through a page-level socket opened while the tab was at about:blank", async () => {
    await attack(async (a) => {
      const pageUrl = a.connectUrl.replace(/\/devtools\/browser\/[^/?]+/, `/devtools/page/${a.tab}`);
      const page = await rawCdp(pageUrl);
      try {
        expect((await page.send("Runtime.evaluate", { expression: "location.href", returnByValue: true })).result.result.value).toBe("about:blank");
        const { answers, closed } = await race(a, "chrome://extensions/", (expression) =>
          Promise.race([page.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }), new Promise<CdpReply>((r) => setTimeout(() => r({ id: 0, error: { code: 0, message: "no answer" } }), 2000))]),
        );
        expectNoBreach(a, answers);
        expect(closed).toBe(true);
        expect((await a.call("fileAccess()")).result.result.value).toBe(false);
        expect(await diskRead(a)).not.toContain(HOSTNAME);
      } finally {
        page.close();
      }
    });
  });

  it("chrome://version (Chrome's command line): tab closed, nothing read", async () => {
    await attack(async (a) => {
      const session = (await a.cdp.send("Target.attachToTarget", { targetId: a.tab, flatten: true })).result.sessionId as string;
      const { answers, closed } = await race(a, "chrome://version/", (expression) => a.cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, session));
      expectNoBreach(a, answers);
      expect(closed).toBe(true);
    });
  });

  it("a new tab the extension opens at chrome://extensions is closed, and attaching to it is refused", async () => {
    await attack(async (a) => {
      const answers: string[] = [];
      void a.call(`openTab("chrome://extensions/")`);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const internal = (await a.targets()).filter((t) => t.type === "page" && t.targetId !== a.tab);
        for (const t of internal) {
          const attached = await a.cdp.send("Target.attachToTarget", { targetId: t.targetId, flatten: true });
          if (attached.error) answers.push(`error: ${attached.error.message}`);
          else {
            const r = await a.cdp.send("Runtime.evaluate", { expression: payload(a.chromeId), awaitPromise: true, returnByValue: true }, attached.result.sessionId);
            answers.push(r.error ? `error: ${r.error.message}` : String(r.result?.result?.value));
          }
        }
      }
      expectNoBreach(a, answers);
      expect((await a.targets()).filter((t) => t.type === "page" && t.url.startsWith("chrome:"))).toEqual([]);
      expect((await a.call("fileAccess()")).result.result.value).toBe(false);
    });
  });

  it("20 races of the extension's navigation against a blast of evaluates: not one succeeds", async () => {
    await attack(async (a) => {
      let tabs = 0;
      for (let i = 0; i < 20; i++) {
        // Each round in a fresh tab at about:blank (the last one was closed).
        const created = await a.cdp.send("Target.createTarget", { url: "about:blank" });
        a.tab = created.result.targetId as string;
        const session = (await a.cdp.send("Target.attachToTarget", { targetId: a.tab, flatten: true })).result.sessionId as string;
        await a.call(`chrome.tabs.query({}).then((ts) => Promise.all(ts.filter((t) => t.id !== undefined).slice(0, -1).map((t) => chrome.tabs.remove(t.id).catch(() => {}))))`);
        const { answers, closed } = await race(a, i % 2 ? "chrome://version/" : "chrome://extensions/", (expression) => a.cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, session));
        expectNoBreach(a, answers);
        if (closed) tabs++;
      }
      expect(tabs).toBe(20);
      expect((await a.call("fileAccess()")).result.result.value).toBe(false);
      expect(await diskRead(a)).not.toContain(HOSTNAME);
    });
  }, 240_000);
});

describe("the command line through SystemInfo", () => {
  it("SystemInfo.getInfo and Browser.getBrowserCommandLine are refused", async () => {
    const session = await bb.sessions.create({});
    const cdp = await rawCdp(session.connectUrl);
    try {
      for (const method of ["SystemInfo.getInfo", "Browser.getBrowserCommandLine"]) {
        const r = await cdp.send(method);
        expect(r.error?.message, JSON.stringify(r).slice(0, 300)).toMatch(/refused by svc/);
      }
    } finally {
      cdp.close();
      await bb.sessions.update(session.id, { status: "REQUEST_RELEASE" });
    }
  });
});
