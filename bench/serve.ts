/**
 * `svc serve` under load: the built server in-process, 1/4/16 clients looping over the session API as a real client
 * would (start → navigate → act → extract → end); a loop counts only when the extracted text shows the click's
 * effect. Memory is this process tree's RSS and PSS over an idle baseline, per Chrome alive at the peak
 * (docs/performance.md). Every Chrome started is checked gone.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { startServer } from "../dist/src/server/index.js";
import { startFixtureServer } from "../test/support/server.js";
import { browsersOf, isChrome, processTree, profilesSeen, sum, text, waitNoChrome, type Proc } from "./proc-tree.js";
import { fmtInt, fmtMs, median, round } from "./stats.js";
import { CHROME } from "./tool.js";

const SECONDS = Math.max(1, Number(process.env.BENCH_SERVE_SECONDS ?? 20));
/** Warm Chromes kept ready by the server (`svc serve --warm-browsers`, whose default is 1). */
const WARM = Math.max(0, Math.round(Number(process.env.BENCH_SERVE_WARM ?? 1)));
const LEVELS = (process.env.BENCH_SERVE_CLIENTS ?? "1,4,16").split(",").map((s) => Math.max(1, Math.round(Number(s)))).filter(Number.isFinite);
const TIMEOUT_MS = Math.max(1000, Number(process.env.BENCH_SERVE_TIMEOUT_MS ?? 120_000));
const MODEL = "openai/gpt-4.1-mini";
const PAGE = "forms.html";
const ACTION = { selector: 'xpath=//*[@id="submit"]', description: "the Submit button", method: "click", arguments: [] as string[] };
/** In the extracted text after the click: the form's submit handler writes its JSON into #result. */
const CLICK_MARK = '"plan":null';
const STEPS = ["start", "navigate", "act", "extract", "end"] as const;
type Step = (typeof STEPS)[number];

const log = (msg: string) => process.stderr.write(msg + "\n");
/** One line; fetch's own "fetch failed" says nothing without its cause (ECONNRESET, "other side closed" …). */
function errText(e: unknown): string {
  if (!(e instanceof Error)) return String(e).split("\n")[0]!.slice(0, 300);
  if (e.name === "TimeoutError") return `timed out after ${TIMEOUT_MS} ms`;
  const cause = e.cause as { code?: string; message?: string } | undefined;
  const why = cause ? ` (${[cause.code, cause.message].filter(Boolean).join(": ")})` : "";
  return (e.message + why).split("\n")[0]!.slice(0, 300);
}
const mb = (kb: number | undefined) => (kb === undefined ? "–" : `${fmtInt(kb / 1024)} MB`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Pct {
  p50: number;
  p95: number;
  n: number;
}
export interface MemSample {
  t: number;
  rssKB: number;
  pssKB: number;
  /** Reapers whose Chrome is already gone (reaperState) and what they hold. */
  staleReapers: number;
  staleRssKB: number;
  stalePssKB: number;
  /** Chrome browser processes alive (one per session). */
  browsers: number;
  /** Sessions between a start's answer and its end's, as the clients see them. */
  clientLive: number;
  processes: number;
}
export interface ServeLevel {
  clients: number;
  elapsedMs: number;
  loops: number;
  failedLoops: number;
  requests: number;
  loopsPerS: number;
  requestsPerS: number;
  latency: Partial<Record<Step | "loop", Pct>>;
  errors: { count: number; first: string[] };
  memory: {
    baselineRssKB: number;
    baselinePssKB: number;
    /** At the sample where the live delta peaked: over the baseline, stale reapers left out. */
    peak?: { rssDeltaKB: number; pssDeltaKB: number; browsers: number; clientLive: number; perSessionRssKB?: number; perSessionPssKB?: number; breakdownKB: Record<string, number> };
    /** Stale reapers alive after the level (all levels so far) and their RSS. */
    staleAfter: { count: number; rssKB: number };
    samples: MemSample[];
  };
  /**
   * CPU seconds during the level: this process (server + clients + sampler) and its reaped children (every
   * Chrome ended in the level, its child processes included); `available` = cores × elapsed.
   */
  cpu: { nodeS: number; childrenS: number; availableS: number };
  /** Event-loop delay of this process (the server's one thread) during the level, ms. */
  loopDelayMs: { p50: number; p99: number; max: number };
  /** Chromes still alive (and platform sessions still RUNNING) once the level's sessions were all ended. */
  leftAfter: { browsers: number; running: number; waitedMs: number };
}
export interface ServeResult {
  date: string;
  seconds: number;
  /** The server's warmBrowsers. */
  warm?: number;
  timeoutMs: number;
  page: string;
  warmupMs?: number;
  levels: ServeLevel[];
  /** Chrome processes found after the server closed (killed by pid); must be 0. */
  leftover: { processes: number; commands: string[] };
  /** Reaper processes still running after the server closed (they exit with this process). */
  reapersAfterClose: number;
  closeMs?: number;
  errors: string[];
}

// ——— one client's requests ———

interface Ctx {
  base: string;
  key: string;
}

function headers(ctx: Ctx, stream: boolean): Record<string, string> {
  // The model key is what official clients send on every call; nothing here calls a model.
  return { "content-type": "application/json", "x-bb-api-key": ctx.key, "x-model-api-key": "sk-bench-unused", ...(stream ? { "x-stream-response": "true" } : {}) };
}

/** A JSON route (start, end): the envelope's `data`. */
async function callJson(ctx: Ctx, path: string, body: unknown): Promise<any> {
  const res = await fetch(ctx.base + path, { method: "POST", headers: headers(ctx, false), body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
  const out = (await res.json().catch(() => ({}))) as { success?: boolean; data?: unknown; message?: string };
  if (!res.ok || out.success !== true) throw new Error(`HTTP ${res.status}: ${out.message ?? "no success envelope"}`);
  return out.data;
}

/** An operation, streamed: the `finished` event's result, or its `error` as a throw. */
async function callStream(ctx: Ctx, path: string, body: unknown): Promise<any> {
  const res = await fetch(ctx.base + path, { method: "POST", headers: headers(ctx, true), body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const t = await res.text().catch(() => "");
    throw new Error(`HTTP ${res.status} ${res.headers.get("content-type")}: ${t.slice(0, 200)}`);
  }
  let terminal: { status: "finished" | "error"; data: any } | undefined;
  const statuses: string[] = [];
  const parser = createParser({
    onEvent(ev) {
      const msg = JSON.parse(ev.data) as { type?: string; data?: { status?: string; result?: unknown; error?: string } };
      const status = msg.data?.status ?? "?";
      statuses.push(status);
      if (msg.type === "system" && (status === "finished" || status === "error") && !terminal) terminal = { status, data: msg.data };
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  if (!terminal) throw new Error(`stream ended without finished/error (events: ${statuses.join(",") || "none"})`);
  if (statuses[0] !== "starting" || statuses[1] !== "connected") throw new Error(`events out of order: ${statuses.join(",")}`);
  if (terminal.status === "error") throw new Error(`error event: ${terminal.data.error}`);
  return terminal.data.result;
}

interface Stats {
  steps: Record<Step | "loop", number[]>;
  loops: number;
  failedLoops: number;
  requests: number;
  errors: string[];
  live: number;
}

async function timedStep<T>(stats: Stats, step: Step, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    const v = await fn();
    stats.steps[step].push(performance.now() - t0);
    stats.requests++;
    return v;
  } catch (e) {
    throw new Error(`${step}: ${errText(e)}`);
  }
}

async function oneLoop(ctx: Ctx, pageUrl: string, stats: Stats, client: number): Promise<boolean> {
  const t0 = performance.now();
  let id: string | undefined;
  let failed: string | undefined;
  try {
    const started = await timedStep(stats, "start", () => callJson(ctx, "/v1/sessions/start", { modelName: MODEL }));
    id = started.sessionId as string;
    stats.live++;
    const s = `/v1/sessions/${id}`;
    const nav = await timedStep(stats, "navigate", () => callStream(ctx, `${s}/navigate`, { url: pageUrl }));
    if (nav?.status !== 200) throw new Error(`navigate: status ${nav?.status}, url ${nav?.url}`);
    const act = await timedStep(stats, "act", () => callStream(ctx, `${s}/act`, { input: ACTION }));
    if (act?.success !== true) throw new Error(`act: not successful: ${act?.message}`);
    const page = await timedStep(stats, "extract", () => callStream(ctx, `${s}/extract`, {}));
    if (typeof page?.pageText !== "string" || !page.pageText.includes(CLICK_MARK)) throw new Error(`extract: the click's effect (${CLICK_MARK}) is not in the page text: ${JSON.stringify(page).slice(0, 200)}`);
  } catch (e) {
    failed = errText(e);
  } finally {
    if (id) {
      try {
        await timedStep(stats, "end", () => callJson(ctx, `/v1/sessions/${id}/end`, {}));
      } catch (e) {
        failed ??= errText(e);
      }
      stats.live--;
    }
  }
  if (failed) {
    stats.failedLoops++;
    stats.errors.push(`client ${client}: ${failed}`);
    return false;
  }
  stats.steps.loop.push(performance.now() - t0);
  stats.loops++;
  return true;
}

// ——— one level ———

/** CPU seconds of this process's reaped children (/proc/self/stat cutime + cstime; USER_HZ 100 on Linux). */
async function childrenCpuS(): Promise<number> {
  const stat = (await text("/proc/self/stat")) ?? "";
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) / 100;
}

function pct(xs: number[]): Pct | undefined {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return { p50: round(at(0.5)), p95: round(at(0.95)), n: s.length };
}

async function runLevel(ctx: Ctx, pageUrl: string, clients: number): Promise<ServeLevel> {
  const idle = await waitNoChrome(30_000);
  if (idle.browsers) log(`  ${idle.browsers} Chrome processes still alive before the level`);
  const base: Proc[][] = [];
  for (let i = 0; i < 3; i++) {
    base.push(await processTree());
    await sleep(200);
  }
  // Stale reapers of earlier levels are left out of the baseline, as they are of every sample.
  const live = (ps: Proc[]) => ps.filter((p) => p.kind !== "reaper-stale");
  const baselineRssKB = median(base.map((p) => sum(live(p), "rssKB")));
  const baselinePssKB = median(base.map((p) => sum(live(p), "pssKB")));

  const stats: Stats = { steps: { start: [], navigate: [], act: [], extract: [], end: [], loop: [] }, loops: 0, failedLoops: 0, requests: 0, errors: [], live: 0 };
  const samples: MemSample[] = [];
  let peak: ServeLevel["memory"]["peak"];
  let peakRss = -Infinity;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const cpu0 = process.cpuUsage();
  const children0 = await childrenCpuS();
  delay.enable();
  const t0 = performance.now();
  const deadline = t0 + SECONDS * 1000;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const procs = await processTree();
      const stale = procs.filter((p) => p.kind === "reaper-stale");
      const s: MemSample = {
        t: round(performance.now() - t0, 0),
        rssKB: sum(live(procs), "rssKB"),
        pssKB: sum(live(procs), "pssKB"),
        staleReapers: stale.length,
        staleRssKB: sum(stale, "rssKB"),
        stalePssKB: sum(stale, "pssKB"),
        browsers: browsersOf(procs),
        clientLive: stats.live,
        processes: procs.length,
      };
      samples.push(s);
      if (s.rssKB - baselineRssKB > peakRss) {
        peakRss = s.rssKB - baselineRssKB;
        const by = (k: Proc["kind"]) => sum(procs.filter((p) => p.kind === k), "rssKB");
        peak = {
          rssDeltaKB: peakRss,
          pssDeltaKB: s.pssKB - baselinePssKB,
          browsers: s.browsers,
          clientLive: s.clientLive,
          ...(s.browsers ? { perSessionRssKB: Math.round(peakRss / s.browsers), perSessionPssKB: Math.round((s.pssKB - baselinePssKB) / s.browsers) } : {}),
          breakdownKB: { server: by("self"), chrome: by("chrome-browser") + by("chrome-child"), reapers: by("reaper"), other: by("other") },
        };
      }
      await sleep(1000);
    }
  })();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < deadline) {
        // A failing server answers fast: back off so errors do not spin.
        if (!(await oneLoop(ctx, pageUrl, stats, c))) await sleep(250);
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  sampling = false;
  await sampler;

  delay.disable();
  const cpu1 = process.cpuUsage(cpu0);
  const after = await waitNoChrome(30_000);
  // Ended Chromes are reaped by now: their CPU is in this process's children's time.
  const childrenS = (await childrenCpuS()) - children0;
  // A reaper exits ~0.5 s after its Chrome (longer on a loaded machine): only the ones that stay count.
  let staleNow: Proc[] = [];
  for (let i = 0; i < 20; i++) {
    staleNow = (await processTree(false)).filter((p) => p.kind === "reaper-stale");
    if (!staleNow.length) break;
    await sleep(250);
  }
  const running = await fetch(`${ctx.base}/v1/sessions?status=RUNNING`, { headers: headers(ctx, false), signal: AbortSignal.timeout(TIMEOUT_MS) })
    .then(async (r) => ((await r.json()) as unknown[]).length)
    .catch(() => -1);
  const latency: ServeLevel["latency"] = {};
  for (const k of [...STEPS, "loop"] as const) {
    const p = pct(stats.steps[k]);
    if (p) latency[k] = p;
  }
  return {
    clients,
    elapsedMs: round(elapsedMs, 0),
    loops: stats.loops,
    failedLoops: stats.failedLoops,
    requests: stats.requests,
    loopsPerS: round(stats.loops / (elapsedMs / 1000), 3),
    requestsPerS: round(stats.requests / (elapsedMs / 1000), 2),
    latency,
    errors: { count: stats.errors.length, first: stats.errors.slice(0, 5) },
    cpu: { nodeS: round((cpu1.user + cpu1.system) / 1e6, 1), childrenS: round(childrenS, 1), availableS: round((cpus().length * elapsedMs) / 1000, 1) },
    loopDelayMs: { p50: round(delay.percentile(50) / 1e6, 1), p99: round(delay.percentile(99) / 1e6, 1), max: round(delay.max / 1e6, 1) },
    memory: { baselineRssKB, baselinePssKB, ...(peak ? { peak } : {}), staleAfter: { count: staleNow.length, rssKB: sum(staleNow, "rssKB") }, samples },
    leftAfter: { browsers: after.browsers, running, waitedMs: after.waitedMs },
  };
}

// ——— the benchmark ———

export async function benchServe(): Promise<ServeResult> {
  const key = `bench-${randomUUID()}`;
  const cacheDir = mkdtempSync(join(tmpdir(), "svc-bench-serve-"));
  const fixtures = await startFixtureServer();
  const pageUrl = fixtures.url(PAGE, "127.0.0.1");
  const result: ServeResult = { date: new Date().toISOString(), seconds: SECONDS, warm: WARM, timeoutMs: TIMEOUT_MS, page: `fixtures/${PAGE}`, levels: [], leftover: { processes: 0, commands: [] }, reapersAfterClose: 0, errors: [] };
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const maxSessions = Math.max(32, ...LEVELS);
    server = await startServer({ port: 0, apiKeys: [key], cacheDir, maxSessions, warmBrowsers: WARM, launch: { executablePath: CHROME } });
    const ctx: Ctx = { base: server.url, key };
    log(`server at ${server.url}; ${SECONDS} s per level, clients ${LEVELS.join(", ")}; loop: start → navigate ${PAGE} → act(click #submit) → extract() → end`);
    // Scans the tree now and then so that profilesSeen holds every Chrome of the run (the warm-up's too).
    const watch = setInterval(() => void processTree(false), 2000);
    try {
      const warm: Stats = { steps: { start: [], navigate: [], act: [], extract: [], end: [], loop: [] }, loops: 0, failedLoops: 0, requests: 0, errors: [], live: 0 };
      if (!(await oneLoop(ctx, pageUrl, warm, 0))) throw new Error(`warm-up loop failed: ${warm.errors[0]}`);
      result.warmupMs = round(warm.steps.loop[0]!, 0);
      for (const n of LEVELS) {
        log(`\n${n} client(s)…`);
        const level = await runLevel(ctx, pageUrl, n);
        result.levels.push(level);
        const l = level.latency.loop;
        log(`  ${level.loops} loops (${level.failedLoops} failed) in ${fmtMs(level.elapsedMs)}: ${level.loopsPerS} loops/s, ${level.requestsPerS} req/s; loop p50 ${fmtMs(l?.p50)} p95 ${fmtMs(l?.p95)}; peak +${mb(level.memory.peak?.rssDeltaKB)} RSS over ${level.memory.peak?.browsers ?? 0} Chromes (${mb(level.memory.peak?.perSessionRssKB)} each); stale reapers ${level.memory.staleAfter.count}`);
        for (const e of level.errors.first) log(`  error: ${e}`);
        result.errors.push(...level.errors.first.map((e) => `${n} clients: ${e}`));
      }
    } finally {
      clearInterval(watch);
    }
  } catch (e) {
    result.errors.push(errText(e));
    log(`serve: ${errText(e)}`);
  } finally {
    if (server) {
      const t0 = performance.now();
      await Promise.race([server.close("the benchmark is over"), sleep(60_000).then(() => result.errors.push("server.close() did not finish within 60 s"))]);
      result.closeMs = round(performance.now() - t0, 0);
    }
    await fixtures.close();
    await waitNoChrome(15_000);
    // Anything left: our descendants, or any process anywhere still using a profile this run created.
    const all = await readdir("/proc");
    const left = new Map<number, string>();
    const tree = await processTree(false);
    result.reapersAfterClose = tree.filter((p) => p.kind === "reaper" || p.kind === "reaper-stale").length;
    for (const p of tree.filter(isChrome)) left.set(p.pid, p.cmd.join(" "));
    for (const e of all.filter((x) => /^\d+$/.test(x))) {
      const cmd = (await text(`/proc/${e}/cmdline`))?.split("\0") ?? [];
      if (cmd.some((a) => profilesSeen.has(a))) left.set(Number(e), cmd.join(" "));
    }
    result.leftover = { processes: left.size, commands: [...left.values()].map((c) => c.slice(0, 200)).slice(0, 5) };
    for (const pid of left.keys()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    if (left.size) result.errors.push(`${left.size} Chrome process(es) left after the server closed (killed)`);
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return result;
}
