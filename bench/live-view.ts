/**
 * The live view's stream cost: built `svc serve --isolate`, one session on a page repainting every frame, one viewer
 * in a Playwright-driven Chromium; over BENCH_LIVE_SECONDS the frames painted per second and the CPU of svc, the
 * session's Chrome and the viewer's, then with no viewer and on a static page. A section of `npm run bench`
 * (`BENCH_ONLY=live`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { TargetSummary } from "./act-model.js";
import { round } from "./stats.js";
import { CHROME } from "./tool.js";

const SECONDS = Math.max(1, Number(process.env.BENCH_LIVE_SECONDS ?? 10));
const KEY = "bench-live-key-0001";
const TICKS = 100; // USER_HZ on Linux
const BIN = fileURLToPath(new URL("../bin/svc.js", import.meta.url));
const ANIMATED = `data:text/html,${encodeURIComponent(
  `<title>animated</title><body style="margin:0;font:40px sans-serif"><div id=n></div><div id=b style="position:absolute;width:80px;height:80px;background:teal"></div><script>let i=0;(function f(){i++;n.textContent=i;b.style.left=(i*4%1000)+"px";b.style.top=(100+(i%200))+"px";requestAnimationFrame(f)})()</script>`,
)}`;
const STATIC = `data:text/html,${encodeURIComponent("<title>static</title><h1>A static page</h1><p>Nothing moves here.</p>")}`;

async function ppids(): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  for (const e of await readdir("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    const stat = await readFile(`/proc/${e}/stat`, "utf8").catch(() => "");
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
  }
  return children;
}

async function tree(root: number): Promise<number[]> {
  const children = await ppids();
  const out: number[] = [];
  for (const q = [root]; q.length; ) {
    const p = q.shift()!;
    out.push(p);
    q.push(...(children.get(p) ?? []));
  }
  return out;
}

/** CPU ticks (user + system) of `pids`. */
async function ticks(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += Number(f[11]) + Number(f[12]);
  }
  return total;
}

export interface LiveRow {
  label: string;
  viewer: boolean;
  /** Frames the viewer painted per second (with a viewer). */
  fps?: number;
  /** Percent of one core over the window. */
  cpu: { svc: number; chrome: number; viewer?: number };
}
export interface LiveViewResult {
  date: string;
  seconds: number;
  cores: number;
  viewport: string;
  loadAverage: { start: number; end: number };
  rows: LiveRow[];
}

const VIEWPORT = { width: 1280, height: 800 };

export async function benchLiveView(): Promise<LiveViewResult> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-live-"));
  const load = { start: round(loadavg()[0]!, 1), end: NaN };
  const rows: LiveRow[] = [];
  const svc = spawn(process.execPath, [BIN, "serve", "--port", "0", "--isolate", "--api-key", KEY, "--warm-browsers", "0", "--cache-dir", join(dir, "cache"), "--data-dir", join(dir, "data")], {
    env: { ...process.env, SVC_STATE_DIR: join(dir, "state"), CHROME_PATH: CHROME },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+?)[;\s]/.exec(out);
      if (m) resolve(m[1]!);
    };
    svc.stdout.on("data", onData);
    svc.stderr.on("data", onData);
    svc.once("exit", (code) => reject(new Error(`svc serve exited (${code}): ${out.slice(-500)}`)));
  });
  const api = async (method: string, path: string, body?: unknown) =>
    (await fetch(`${url}${path}`, { method, headers: { "x-bb-api-key": KEY, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) })).json() as Promise<Record<string, any>>;
  const viewer = await chromium.launch({ executablePath: CHROME, args: ["--no-sandbox"] });
  try {
    const session = await api("POST", "/v1/sessions", { keepAlive: true });
    const cdp = await chromium.connectOverCDP(session.connectUrl as string);
    const page = cdp.contexts()[0]!.pages()[0] ?? (await cdp.contexts()[0]!.newPage());
    const debug = await api("GET", `/v1/sessions/${session.id}/debug`);
    const measure = async (label: string, withViewer: boolean) => {
      const view = withViewer ? await viewer.newPage({ viewport: VIEWPORT }) : undefined;
      if (view) {
        await view.goto(debug.debuggerFullscreenUrl as string);
        await view.waitForSelector("img[data-svc-live][data-frames]", { timeout: 30_000 });
      }
      const frames = async () => (view ? Number(await view.locator("img[data-svc-live]").getAttribute("data-frames")) : 0);
      const svcPids = [svc.pid!];
      const svcTree = await tree(svc.pid!);
      const chromePids = svcTree.filter((p) => p !== svc.pid);
      // This process's other descendants: the viewer's Chromium (Playwright runs in this process; the sections
      // before this one have closed their browsers).
      const viewerPids = (await tree(process.pid)).filter((p) => p !== process.pid && !svcTree.includes(p));
      const before = { f: await frames(), s: await ticks(svcPids), c: await ticks(chromePids), v: await ticks(viewerPids), t: performance.now() };
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const after = { f: await frames(), s: await ticks(svcPids), c: await ticks(chromePids), v: await ticks(viewerPids), t: performance.now() };
      const s = (after.t - before.t) / 1000;
      const pct = (d: number) => round((d / TICKS / s) * 100, 1);
      const cpu = { svc: pct(after.s - before.s), chrome: pct(after.c - before.c), ...(withViewer ? { viewer: pct(after.v - before.v) } : {}) };
      const row: LiveRow = { label, viewer: withViewer, cpu, ...(withViewer ? { fps: round((after.f - before.f) / s, 1) } : {}) };
      rows.push(row);
      process.stderr.write(`  ${label}: ${row.fps ?? "–"} frames/s; CPU svc ${row.cpu.svc}%, Chrome ${row.cpu.chrome}%, viewer ${row.cpu.viewer ?? "–"}%\n`);
      await view?.close();
    };
    await page.goto(ANIMATED);
    await measure("animated, no viewer", false);
    await measure("animated, 1 viewer", true);
    await page.goto(STATIC);
    await measure("static, 1 viewer", true);
    await cdp.close();
    await api("POST", `/v1/sessions/${session.id}`, { status: "REQUEST_RELEASE" });
  } finally {
    await viewer.close();
    svc.kill("SIGTERM");
    await new Promise((r) => svc.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
  load.end = round(loadavg()[0]!, 1);
  return { date: new Date().toISOString(), seconds: SECONDS, cores: cpus().length, viewport: `${VIEWPORT.width}×${VIEWPORT.height}`, loadAverage: load, rows };
}

/** The markdown of the live view's figures, in bench/results.md's style, and its target row. */
export function liveViewTables(res: LiveViewResult): { md: string; targets: TargetSummary[] } {
  const pct = (x: number | undefined) => (x === undefined ? "–" : `${x.toFixed(0)}%`);
  const lines = [
    `**Live view stream** — \`svc serve --isolate\` as built (its own process), one session, the live view opened in a headless Chromium at ${res.viewport}; over ${res.seconds} s each: frames the viewer painted per second, CPU in percent of one core (${res.cores} cores, shared; 1-minute load average ${res.loadAverage.start} at the start, ${res.loadAverage.end} at the end). Measured ${res.date.slice(0, 10)}`,
    "",
    "| page, viewers | frames/s painted | svc serve | session Chrome | viewer Chromium |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...res.rows.map((r) => `| ${r.label} | ${r.fps === undefined ? "–" : r.fps.toFixed(1)} | ${pct(r.cpu.svc)} | ${pct(r.cpu.chrome)} | ${pct(r.cpu.viewer)} |`),
    "",
    "The animated page repaints every animation frame (a counter and a moving box); a frame goes to the viewer only once it acknowledged the last one, so the rate is what the viewer keeps up with.",
  ];
  const animated = res.rows.find((r) => r.viewer && r.label.startsWith("animated"));
  const fps = animated?.fps ?? 0;
  return {
    md: lines.join("\n"),
    targets: [{ what: "live view stream, one viewer: frames acknowledged, fps and CPU reported", target: "frames flow", verdict: fps > 0 ? `met (${fps.toFixed(1)} frames/s)` : "missed (no frame painted)", perPage: { animated: fps } }],
  };
}
