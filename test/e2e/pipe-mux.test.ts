/**
 * The pipe mux (src/browser/pipe-mux.ts) against a real Chrome on --remote-debugging-pipe: two clients over
 * the one pipe never see each other's ids or sessions, a client cannot use a session it does not own, a
 * page client lives as long as its page, and a client that leaves has its sessions detached.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MuxClient, PipeMux } from "../../src/browser/pipe-mux.js";
import { CHROMIUM, waitFor } from "../support/browser.js";

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
