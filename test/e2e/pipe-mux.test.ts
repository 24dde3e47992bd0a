/**
 * The pipe mux against a real Chrome on --remote-debugging-pipe: clients never see each other's ids or sessions nor
 * use one they do not own, a page client lives as long as its page, a leaving client's sessions are detached, and a
 * tab made with a URL waits for a client that auto-attaches paused, as a popup does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MuxClient, PipeMux } from "../../src/browser/pipe-mux.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { killProcessesMentioning, processesMentioning } from "../support/process.js";

interface Reply {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: any;
  error?: { message: string };
  params?: any;
}

/** A test client: what it received, and a way to wait for the reply to one of its ids. */
class Probe {
  readonly got: Reply[] = [];
  closedWith: string | undefined;
  client!: MuxClient;
  send(m: Record<string, unknown>): void {
    this.client.receive(JSON.stringify(m));
  }
  async reply(id: number): Promise<Reply> {
    await waitFor(() => this.got.some((r) => r.id === id));
    return this.got.find((r) => r.id === id)!;
  }
  async call(id: number, method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Reply> {
    this.send({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return this.reply(id);
  }
}

let chrome: ChildProcess;
let mux: PipeMux;
const profile = mkdtempSync(join(tmpdir(), "svc-pipe-mux-"));

async function probe(targetId?: string): Promise<Probe> {
  const p = new Probe();
  p.client = await mux.attach({ send: (t) => void p.got.push(JSON.parse(t) as Reply), close: (why) => void (p.closedWith = why) }, targetId);
  return p;
}

async function attachedPages(): Promise<Array<{ targetId: string; attached: boolean; url: string }>> {
  const { targetInfos } = (await mux.call("Target.getTargets")) as { targetInfos: Array<{ targetId: string; type: string; attached: boolean; url: string }> };
  return targetInfos.filter((t) => t.type === "page");
}

beforeAll(async () => {
  chrome = spawn(CHROMIUM, ["--headless=new", "--no-sandbox", "--remote-debugging-pipe", `--user-data-dir=${profile}`, "--no-first-run", "about:blank"], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
  const toChrome = chrome.stdio[3] as Writable;
  const fromChrome = chrome.stdio[4] as Readable;
  mux = new PipeMux((text) => void toChrome.write(`${text}\0`));
  // Chrome killed at the end resets its pipes (ECONNRESET, EPIPE): the close that follows ends the mux.
  toChrome.on("error", () => {});
  fromChrome.on("error", () => {});
  fromChrome.on("data", (c: Buffer) => mux.feed(c));
  fromChrome.on("close", () => mux.end());
  await mux.call("Target.getTargetInfo");
});

afterAll(async () => {
  chrome?.kill("SIGKILL");
  await new Promise((r) => (chrome.exitCode === null && chrome.signalCode === null ? chrome.once("exit", r) : r(undefined)));
  // Chrome's children (its network service, the zygotes) outlive a -9 of the browser for a moment, writing into
  // the profile meanwhile (a removal once failed on a dir they had just written): they are ended and gone first.
  killProcessesMentioning(profile);
  await waitFor(() => processesMentioning(profile).length === 0);
  rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
});

describe("PipeMux over Chrome's pipe", () => {
  it("two clients using the same ids each get exactly their own replies, without a sessionId", async () => {
    const a = await probe();
    const b = await probe();
    a.send({ id: 1, method: "Browser.getVersion" });
    b.send({ id: 1, method: "Target.getTargets" });
    const [ra, rb] = await Promise.all([a.reply(1), b.reply(1)]);
    expect(ra.result.product).toMatch(/Chrome/);
    expect(ra.sessionId).toBeUndefined();
    expect(Array.isArray(rb.result.targetInfos)).toBe(true);
    expect(a.got.filter((r) => r.id === 1)).toHaveLength(1);
    expect(b.got.filter((r) => r.id === 1)).toHaveLength(1);
    a.client.close();
    b.client.close();
  });

  it("a session attached by one client is refused to the other; its events go to its owner only", async () => {
    const a = await probe();
    const b = await probe();
    const { result } = await a.call(1, "Target.createTarget", { url: "about:blank" });
    const { targetId } = result as { targetId: string };
    const attached = await a.call(2, "Target.attachToTarget", { targetId, flatten: true });
    const session = attached.result.sessionId as string;
    const own = await a.call(3, "Runtime.evaluate", { expression: "6 * 7" }, session);
    expect(own.result.result.value).toBe(42);
    expect(own.sessionId).toBe(session);
    const foreign = await b.call(3, "Runtime.evaluate", { expression: "document.title = 'b was here'" }, session);
    expect(foreign.error?.message).toMatch(/Session with given id not found/);
    expect(foreign.result).toBeUndefined();
    await a.call(4, "Runtime.enable", {}, session);
    expect(a.got.some((m) => m.method === "Runtime.executionContextCreated" && m.sessionId === session)).toBe(true);
    expect(b.got.some((m) => m.sessionId === session)).toBe(false);
    // Its own auto-attached children are learnt too.
    await a.call(5, "Target.setDiscoverTargets", { discover: true });
    expect(b.got.some((m) => m.method === "Target.targetCreated")).toBe(false);
    expect((await attachedPages()).find((t) => t.targetId === targetId)?.attached).toBe(true);

    // A leaves: its sessions are detached (the page is attached to nobody), and B is unaffected.
    a.client.close();
    expect(await waitFor(async () => (await attachedPages()).find((t) => t.targetId === targetId)?.attached === false)).toBe(true);
    expect((await b.call(4, "Target.closeTarget", { targetId })).result).toEqual({ success: true });
    b.client.close();
  });

  it("a page client speaks to its page without sessions, and ends when the page closes", async () => {
    const { targetId } = (await mux.call("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const p = await probe(targetId);
    const r = await p.call(1, "Runtime.evaluate", { expression: "location.href" });
    expect(r.result.result.value).toBe("about:blank");
    expect(r.sessionId).toBeUndefined();
    await mux.call("Target.closeTarget", { targetId });
    expect(await waitFor(() => p.closedWith !== undefined)).toBe(true);
    expect(p.closedWith).toMatch(/closed/);
  });

  it("malformed messages are answered, not forwarded", async () => {
    const a = await probe();
    a.client.receive("not json");
    a.client.receive(JSON.stringify({ method: "Browser.close" }));
    await waitFor(() => a.got.length === 2);
    expect(a.got.map((m) => m.error?.message)).toEqual([expect.stringMatching(/valid JSON/), expect.stringMatching(/integer 'id'/)]);
    expect(chrome.exitCode).toBe(null);
    a.client.close();
  });
});

describe("a tab made with a URL, while a client auto-attaches paused", () => {
  /** What the page server was asked for, in order; its page alerts as it loads. */
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.setHeader("content-type", "text/html");
    res.end(`<title>${req.url}</title><script>alert("loaded " + location.pathname)</script>`);
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  }));

  /** A client that auto-attaches paused, and the new page it is told waits for it. */
  async function keeper(): Promise<{ p: Probe; paused: () => Promise<Reply> }> {
    const p = await probe();
    await p.call(1, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    const seen = p.got.length; // the pages open now were reported before the reply
    const isNew = (m: Reply) => m.method === "Target.attachedToTarget" && m.params.waitingForDebugger === true && m.params.targetInfo.type === "page";
    return { p, paused: () => waitFor(() => p.got.slice(seen).find(isNew)) };
  }

  it("waits at about:blank until the client resumed it, so the client sees the dialog its first script opens", async () => {
    const k = await keeper();
    const b = await probe();
    const made = await b.call(1, "Target.createTarget", { url: `${base}/first` });
    const targetId = made.result.targetId as string;
    const attached = await k.paused();
    expect(attached.params.targetInfo.targetId).toBe(targetId);
    // Chrome's own createTarget reports the URL here, and its page has run already.
    expect(attached.params.targetInfo.url).toBe("about:blank");
    const session = attached.params.sessionId as string;
    await k.p.call(2, "Page.enable", {}, session);
    expect(asked).not.toContain("/first");
    k.p.send({ id: 3, method: "Runtime.runIfWaitingForDebugger", sessionId: session });

    const dialog = await waitFor(() => k.p.got.find((m) => m.method === "Page.javascriptDialogOpening" && m.sessionId === session));
    expect(dialog.params.message).toBe("loaded /first");
    expect((await k.p.call(4, "Page.handleJavaScriptDialog", { accept: true }, session)).error).toBeUndefined();
    expect(await waitFor(async () => ((await mux.call("Target.getTargetInfo", { targetId })).targetInfo as { title: string }).title === "/first")).toBe(true);
    await mux.call("Target.closeTarget", { targetId });
    k.p.client.close();
    b.client.close();
  });

  it("the maker's reply does not wait for the paused client", async () => {
    const k = await keeper();
    const b = await probe();
    const made = await b.call(1, "Target.createTarget", { url: `${base}/second` });
    const attached = await k.paused();
    expect(attached.params.targetInfo.targetId).toBe(made.result.targetId);
    expect(asked).not.toContain("/second");
    k.p.send({ id: 2, method: "Runtime.runIfWaitingForDebugger", sessionId: attached.params.sessionId });
    expect(await waitFor(() => asked.includes("/second"))).toBe(true);
    // Nobody answers its alert (Page is not enabled): closing the tab ends it.
    await mux.call("Target.closeTarget", { targetId: made.result.targetId });

    k.p.client.close();
    b.client.close();
  });
});
