/**
 * A live view viewer that acks every frame but never reads its socket (issue 40), on a tab repainting every frame:
 * frames stop once LIVE_LIMITS.maxBufferedBytes wait unsent, the viewer is closed with 1008 after
 * LIVE_LIMITS.stuckViewerMs, and the serving process's RSS stays bounded. The one viewer code is proved under both
 * `svc serve` and a CLI host (`svc view`).
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askHost } from "../../commands/host/ask.js";
import { LIVE_LIMITS } from "../../src/server/live/messages.js";
import { json, processesMentioning, type Sandbox, sandbox, svc, useCliWorld, waitFor } from "./helpers.js";
import { type Served, startServe } from "./serve-helpers.js";

const KEY = "live-stuck-key-0001";
/**
 * Random pixels ten times a second: large JPEGs (~0.5 MB), so the socket backs up within a second or two. Not every
 * animation frame: painting noise at 60 fps cost Chrome a core for the whole stuck time.
 */
const NOISE = `data:text/html,${encodeURIComponent(
  `<title>noise</title><body style="margin:0"><canvas id=c width=1280 height=720></canvas><script>
const x = c.getContext("2d"), img = x.createImageData(1280, 720), px = new Uint32Array(img.data.buffer);
let s = 1;
(function f() { for (let i = 0; i < px.length; i++) { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; px[i] = s | 0xff000000; } x.putImageData(img, 0, 0); setTimeout(f, 100); })();
</script>`,
)}`;
/** The RSS a stuck viewer may add to the process serving it (without the bound it added hundreds of MB). */
const RSS_BOUND = 64 * 1024 * 1024;
const CLOSE = { code: 1008, reason: `viewer: read nothing for ${LIVE_LIMITS.stuckViewerMs / 1000} s` };

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

interface Stuck {
  ws: WebSocket;
  /** Sizes of the frames received. */
  frames: number[];
  closed: Promise<{ code: number; reason: string }>;
  /** The client's TCP socket (paused by `stall`). */
  raw: Socket;
}

/** A raw viewer of the live view socket at `socketUrl`, once it received a frame. */
async function viewer(socketUrl: string, onMessage: (bytes: number) => void = () => {}): Promise<Stuck> {
  const ws = new WebSocket(socketUrl);
  const frames: number[] = [];
  ws.on("message", (data, binary) => {
    const bytes = (data as Buffer).length;
    if (binary) frames.push(bytes);
    onMessage(bytes);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  await waitFor(() => frames.length > 0);
  return { ws, frames, closed, raw: (ws as unknown as { _socket: Socket })._socket };
}

/**
 * From now on nothing is read while the acks keep coming (100 a second, under the rate limit), and the RSS of
 * process `pid` is sampled; `resume()` reads again and gives the RSS before and the largest seen.
 */
function stall(v: Stuck, pid: number): { resume(): { before: number; max: number } } {
  v.raw.pause();
  const before = rssBytes(pid);
  let max = before;
  const acks = setInterval(() => {
    v.ws.send(JSON.stringify({ type: "ack" }));
    max = Math.max(max, rssBytes(pid));
  }, 10);
  return {
    resume() {
      clearInterval(acks);
      v.raw.resume();
      return { before, max };
    },
  };
}

describe("svc serve", () => {
  let sb: Sandbox;
  let served: Served;

  beforeAll(async () => {
    sb = sandbox();
    served = await startServe(sb.env, ["--api-key", KEY, "--warm-browsers", "0"], ["--verbose", "1"]);
  }, 60_000);
  afterAll(() => {
    served?.child.kill("SIGKILL");
    sb?.cleanup();
  });

  it("a viewer that acks frames without reading them is sent at most the buffer bound, then closed with 1008; the server's RSS stays bounded", async () => {
    const created = await fetch(`${served.url}/v1/sessions`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: "{}" });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; connectUrl: string };
    const cdp = await chromium.connectOverCDP(session.connectUrl);
    try {
      const page = cdp.contexts()[0]!.pages()[0] ?? (await cdp.contexts()[0]!.newPage());
      await page.goto(NOISE);
      const debug = (await (await fetch(`${served.url}/v1/sessions/${session.id}/debug`, { headers: { "x-bb-api-key": KEY } })).json()) as { debuggerUrl: string };
      const u = new URL(debug.debuggerUrl);
      const v = await viewer(`ws://${u.host}${u.pathname}/socket`);
      const stalled = stall(v, served.child.pid!);
      let line: RegExpExecArray | null = null;
      let rss = { before: 0, max: 0 };
      try {
        // The bound on the wait covers the stuck time, the filling of the kernel's buffers and a loaded machine.
        line = await waitFor(() => /live view: closed a viewer that read nothing for (\d+) s \((\d+) bytes waiting\)/.exec(served.output().stderr), LIVE_LIMITS.stuckViewerMs + 45_000);
      } finally {
        rss = stalled.resume();
      }
      expect(Number(line[1]) * 1000).toBe(LIVE_LIMITS.stuckViewerMs);
      // The close comes after everything queued before it; what was waiting then is read now.
      expect(await v.closed).toEqual(CLOSE);
      // Unsent bytes in the server: frames stop past the bound, so at most the bound, one frame and a few small messages.
      expect(Number(line[2])).toBeLessThanOrEqual(LIVE_LIMITS.maxBufferedBytes + Math.max(...v.frames) + 64 * 1024);
      expect(rss.max - rss.before).toBeLessThan(RSS_BOUND);
    } finally {
      await cdp.close().catch(() => {});
      await fetch(`${served.url}/v1/sessions/${session.id}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
    }
  }, 120_000);
});

/** Bytes the kernel holds on the loopback connection between ports `client` and `server`: the server's send queue and the client's receive queue. */
function kernelQueued(client: number, server: number): number {
  let bytes = 0;
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    const [local, remote] = [f[1]!, f[2]!].map((a) => parseInt(a.split(":")[1]!, 16));
    const [tx, rx] = f[4]!.split(":").map((h) => parseInt(h, 16));
    if (local === client && remote === server) bytes += rx!;
    if (local === server && remote === client) bytes += tx!;
  }
  return bytes;
}

describe("a CLI session's host (svc view)", () => {
  const world = useCliWorld({ session: true });
  const ok = async (...args: string[]) => {
    const r = await svc(args, world.sb.env);
    if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };

  it("a viewer of `svc view` that acks frames without reading them is sent at most the buffer bound, then closed with 1008; the host's RSS stays bounded and is not kept", async () => {
    await ok("goto", NOISE);
    const { session, url } = json<{ session: string; url: string }>(await ok("--json", "view"));
    const [hostPid, ...others] = processesMentioning(`host/main.js\0${session}\0`);
    expect([hostPid, others]).toEqual([expect.any(Number), []]);
    const viewers = async () => {
      const r = await askHost<{ viewers: number }>(world.sb.state, session, { control: "view", start: false });
      return r.t === "ok" ? r.viewers : -1;
    };
    const u = new URL(url);
    let read = 0;
    const v = await viewer(`ws://${u.host}${u.pathname}/socket`, (bytes) => void (read += bytes));
    const stalled = stall(v, hostPid!);
    let rss = { before: 0, max: 0 };
    let queued = 0;
    let readStalled = 0;
    try {
      // The host logs nothing, and its close frame waits behind the unread bytes, so the close is seen only by
      // reading. It comes within stuckViewerMs plus one tabsRefreshMs check of when the kernel's queues stopped
      // growing, and ws keeps the close frame for its 30 s close timeout: reading 8 s past the latest close time
      // lands in between on a loaded machine.
      let since = Date.now();
      await waitFor(() => {
        const q = kernelQueued(v.raw.localPort!, Number(u.port));
        if (q !== queued) [queued, since] = [q, Date.now()];
        return q > 0 && Date.now() - since >= 2000;
      }, 30_000);
      await sleep(LIVE_LIMITS.stuckViewerMs + LIVE_LIMITS.tabsRefreshMs + 8_000);
    } finally {
      readStalled = read;
      rss = stalled.resume();
    }
    // Without the bound the host grew by hundreds of MB in this time (every frame queued for the socket).
    expect(rss.max - rss.before).toBeLessThan(RSS_BOUND);
    expect(await v.closed).toEqual(CLOSE);
    // What was read after the stall: the kernel's queues, then what waited in the host (at most the bound, one frame and a few small messages).
    expect(read - readStalled).toBeLessThanOrEqual(queued + LIVE_LIMITS.maxBufferedBytes + Math.max(...v.frames) + 64 * 1024);
    // The viewer gone, the host keeps none of it.
    await waitFor(async () => (await viewers()) === 0);
    const after = rssBytes(hostPid!);
    console.log(`svc view's host RSS: ${(rss.before / 2 ** 20).toFixed(0)} MiB before the stall, at most ${(rss.max / 2 ** 20).toFixed(0)} MiB during it, ${(after / 2 ** 20).toFixed(0)} MiB once the viewer was gone; ${read - readStalled} bytes read after it (${queued} in the kernel)`);
    expect(after - rss.before).toBeLessThan(RSS_BOUND);
  }, 120_000);
});
