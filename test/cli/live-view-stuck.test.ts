/**
 * A live view viewer that acknowledges every frame but never reads its socket (issue 40), against a spawned
 * `svc serve` whose session's tab repaints every frame: the server stops sending frames once
 * LIVE_LIMITS.maxBufferedBytes wait unsent, closes the viewer with 1008 and a reason after
 * LIVE_LIMITS.stuckViewerMs, and its RSS stays bounded meanwhile. The viewer code is the one the CLI session's
 * host serves too (src/server/live/viewer.ts).
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { chromium } from "playwright-core";
import { WebSocket } from "ws";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LIVE_LIMITS } from "../../src/server/live/messages.js";
import { type Sandbox, sandbox, waitFor } from "./helpers.js";
import { type Served, startServe } from "./serve-helpers.js";

const KEY = "live-stuck-key-0001";
/** Random pixels every frame: large JPEGs, so the socket backs up within a few frames. */
const NOISE = `data:text/html,${encodeURIComponent(
  `<title>noise</title><body style="margin:0"><canvas id=c width=1280 height=720></canvas><script>
const x = c.getContext("2d"), img = x.createImageData(1280, 720), px = new Uint32Array(img.data.buffer);
let s = 1;
(function f() { for (let i = 0; i < px.length; i++) { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; px[i] = s | 0xff000000; } x.putImageData(img, 0, 0); requestAnimationFrame(f); })();
</script>`,
)}`;

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

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

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
    const ws = new WebSocket(`ws://${u.host}${u.pathname}/socket`);
    const frames: number[] = [];
    ws.on("message", (data, binary) => void (binary && frames.push((data as Buffer).length)));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    await waitFor(() => frames.length > 0);

    // From now on nothing is read: the acks keep coming (100 a second, under the rate limit).
    const raw = (ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    const rssBefore = rssBytes(served.child.pid!);
    let rssMax = rssBefore;
    const acks = setInterval(() => {
      ws.send(JSON.stringify({ type: "ack" }));
      rssMax = Math.max(rssMax, rssBytes(served.child.pid!));
    }, 10);
    let line: RegExpExecArray | null = null;
    try {
      // The bound on the wait covers the stuck time, the filling of the kernel's buffers and a loaded machine.
      line = await waitFor(() => /live view: closed a viewer that read nothing for (\d+) s \((\d+) bytes waiting\)/.exec(served.output().stderr), LIVE_LIMITS.stuckViewerMs + 45_000);
    } finally {
      clearInterval(acks);
      raw.resume();
    }
    expect(Number(line[1]) * 1000).toBe(LIVE_LIMITS.stuckViewerMs);
    // The close comes after everything queued before it; what was waiting then is read now.
    expect(await closed).toEqual({ code: 1008, reason: `viewer: read nothing for ${LIVE_LIMITS.stuckViewerMs / 1000} s` });
    const largestFrame = Math.max(...frames);
    // Unsent bytes in the server: frames stop past the bound, so at most the bound, one frame and a few small messages.
    expect(Number(line[2])).toBeLessThanOrEqual(LIVE_LIMITS.maxBufferedBytes + largestFrame + 64 * 1024);
    // Without the bound the server grew by hundreds of MB in this time (every frame queued for the socket).
    expect(rssMax - rssBefore).toBeLessThan(64 * 1024 * 1024);
  } finally {
    await cdp.close().catch(() => {});
    await fetch(`${served.url}/v1/sessions/${session.id}`, { method: "POST", headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  }
}, 120_000);
