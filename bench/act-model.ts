/**
 * act(instruction) with a model, svc vs Stagehand 3.7.3, and svc's cached replay (docs/performance.md). One fake
 * model server at zero latency answers both over the Responses API, each tool on its own path prefix so every request
 * is attributed. Both must act on the page's target element (ActSpec.css). The re-posted last request times the
 * model's share of the wall time at zero latency.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Stagehand } from "@browserbasehq/stagehand";
import { Service } from "../src/index.js";
import { ActCache } from "../src/cache/act-cache.js";
import { resolveTarget } from "../src/operations/perform.js";
import { startFakeModel, type FakeModel, type FakeReplyFn, type FakeRequest } from "../test/support/fake-model.js";
import type { ActSpec, BenchPage } from "./pages.js";
import { fmtInt, fmtMs, fmtRatio, median, ratio, round, summarize, timed, tokens, verdict, type Summary } from "./stats.js";
import { ARGS, CHROME, VIEWPORT } from "./tool.js";

const MODEL = "openai/gpt-4.1-mini";
const API_KEY = "sk-test-bench";

type Prefix = "svc" | "svc-cache" | "stagehand";
type ShPage = ReturnType<Stagehand["context"]["pages"]>[number];
type Action = { selector: string; description: string; method: string; arguments: string[] };
type ActOut = { success: boolean; message: string; actions: Action[]; cacheStatus?: "HIT" | "MISS" };

export interface OpTime {
  time?: Summary;
  error?: string;
}

export interface PromptSize {
  /** Median over the timed rounds, per model request. */
  tokens: number;
  chars: number;
  /** Model requests per act call during the timed rounds (1 = one model call per act). */
  requestsPerAct: number;
  /** Whether every request's text was identical. */
  stable: boolean;
}

export interface ActModelPage {
  page: string;
  url: string;
  instruction: string;
  method: string;
  target: string;
  ops: Record<string, OpTime>;
  prompt: Partial<Record<"svc" | "stagehand", PromptSize>>;
  /** Plain fetch of the tool's last request to the fake, RUNS times: the model's share of the wall time. */
  modelRoundTrip: Partial<Record<"svc" | "stagehand", Summary>>;
  cache?: {
    missMs: number;
    missStatus: string | undefined;
    missModelRequests: number;
    /** Timed replays (+1 warm-up) and how many came back HIT. */
    replays: number;
    hits: number;
    /** Requests the fake received from the cached svc during all replays: must be 0. */
    replayModelRequests: number;
  };
  /** Whether each tool's reported selector resolves to ActSpec.css in its page. */
  sameElement: Record<string, boolean | string>;
  errors: string[];
}

export interface ActModelResult {
  date: string;
  runs: number;
  /** Rounds of the cached-replay series (replay, act(action), identity check). */
  replayRuns: number;
  launchMs: Record<string, number>;
  pages: ActModelPage[];
}

const log = (msg: string) => process.stderr.write(msg + "\n");
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The prompt as the model receives it: system text, every message, the schema. */
export function promptText(req: FakeRequest): string {
  return [req.systemText, ...req.messages.map((m) => m.text), req.schema ? JSON.stringify(req.schema) : ""].filter(Boolean).join("\n");
}

const prefixOf = (req: FakeRequest): Prefix | undefined => {
  const p = req.path.split("/")[1];
  return p === "svc" || p === "svc-cache" || p === "stagehand" ? p : undefined;
};

/** Stagehand's act reply: the id of the line `[f-n] <role>: <name>` (states after it allowed) in the tree it sent. */
function stagehandReply(req: FakeRequest, spec: ActSpec | undefined, misses: string[]): Record<string, unknown> {
  if (!spec) {
    misses.push("stagehand asked the model with no page spec set");
    return { action: null, twoStep: false };
  }
  // States follow the name: `[1-15] checkbox: Show refundable only [checked]`.
  const line = new RegExp(`^\\s*\\[(\\d+-\\d+)\\] ${esc(spec.role)}: ${esc(spec.name)}(?: \\[[^\\]]*\\])*\\s*$`, "m");
  const m = line.exec(req.userText);
  if (!m) {
    const near = req.userText.split("\n").filter((l) => l.includes(spec.name)).map((l) => l.trim()).slice(0, 3);
    misses.push(`no "${spec.role}: ${spec.name}" line in Stagehand's tree${near.length ? ` (lines naming it: ${near.join(" | ")})` : ""}`);
    return { action: null, twoStep: false };
  }
  return { action: { elementId: m[1], description: `${spec.role} ${spec.name}`, method: spec.method, arguments: [] }, twoStep: false };
}

const sameElementJs = (selector: string, css: string) =>
  `(() => { try { const x = ${JSON.stringify(selector)}.replace(/^xpath=/, ""); ` +
  `const n = document.evaluate(x, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; ` +
  `return n !== null && n === document.querySelector(${JSON.stringify(css)}); } catch (e) { return "error: " + e.message; } })()`;

function ok(r: ActOut, who: string): ActOut {
  if (!r.success) throw new Error(`${who}: ${r.message}`);
  return r;
}

interface Op {
  id: string;
  run: () => Promise<unknown>;
}

/** RUNS rounds of the live ops in a rotated order (the warm-up was done by the caller). */
async function rounds(ops: Op[], runs: number, out: Record<string, OpTime>): Promise<void> {
  const samples = new Map<string, number[]>(ops.map((o) => [o.id, []]));
  const failed = new Set<string>();
  for (let r = 0; r < runs; r++) {
    const shift = r % Math.max(1, ops.length);
    for (const op of [...ops.slice(shift), ...ops.slice(0, shift)]) {
      if (failed.has(op.id)) continue;
      try {
        samples.get(op.id)!.push((await timed(op.run)).ms);
      } catch (e) {
        failed.add(op.id);
        out[op.id] = { error: errText(e) };
        log(`  ${op.id}: ERROR ${out[op.id]!.error}`);
      }
    }
  }
  for (const op of ops) if (!failed.has(op.id)) out[op.id] = { time: summarize(samples.get(op.id)!) };
}

/** Median prompt size of one tool's requests in [from, to). */
function promptSize(reqs: FakeRequest[], acts: number): PromptSize | undefined {
  if (!reqs.length) return undefined;
  const texts = reqs.map(promptText);
  return {
    tokens: round(median(texts.map(tokens))),
    chars: round(median(texts.map((t) => t.length))),
    requestsPerAct: round(reqs.length / Math.max(1, acts), 2),
    stable: new Set(texts).size === 1,
  };
}

async function roundTrip(fake: FakeModel, req: FakeRequest, runs: number, topUp: () => void): Promise<Summary> {
  const body = JSON.stringify(req.body);
  const post = async () => {
    topUp();
    const res = await fetch(`${fake.origin}${req.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` }, body });
    await res.text();
    if (!res.ok) throw new Error(`fake model: HTTP ${res.status}`);
  };
  await post();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push((await timed(post)).ms);
  return summarize(xs);
}

export async function benchActModel(pages: BenchPage[], runs: number, replayRuns: number): Promise<ActModelResult> {
  const fake = await startFakeModel({ latencyMs: 0 });
  const cacheDir = mkdtempSync(join(tmpdir(), "svc-bench-cache-"));
  let spec: ActSpec | undefined;
  const stagehandMisses: string[] = [];
  // One standing reply: svc's prompts are answered automatically, Stagehand's from its tree.
  const reply: FakeReplyFn = (req) => (prefixOf(req) === "stagehand" ? { kind: "object", value: stagehandReply(req, spec, stagehandMisses) } : { kind: "auto" });
  const topUp = () => {
    while (fake.queued < 8) fake.script(reply);
  };
  topUp();

  const launchOpts = { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT };
  const model = (prefix: Prefix) => ({ modelName: MODEL, apiKey: API_KEY, baseURL: fake.baseURL("openai", `/${prefix}`) });
  const svc = new Service({ verbose: 0, model: model("svc"), localBrowserLaunchOptions: launchOpts });
  const svcCached = new Service({ verbose: 0, model: model("svc-cache"), cacheDir, localBrowserLaunchOptions: launchOpts });
  const sh = new Stagehand({ env: "LOCAL", verbose: 0, disablePino: true, model: model("stagehand"), localBrowserLaunchOptions: launchOpts });
  let shPage: ShPage | undefined;

  const result: ActModelResult = { date: new Date().toISOString(), runs, replayRuns, launchMs: {}, pages: [] };
  try {
    result.launchMs.svc = round((await timed(() => svc.init())).ms);
    result.launchMs["svc (cache)"] = round((await timed(() => svcCached.init())).ms);
    result.launchMs.stagehand = round((await timed(() => sh.init())).ms);
    shPage = sh.context.pages()[0]!;

    for (const page of pages) {
      if (!page.act) continue;
      spec = page.act;
      const a = page.act;
      // Put as a request, so svc's literal path (no model: act-literal.ts) does not take it: this part measures
      // the model's path, the same words on both sides.
      const asked = `please ${a.instruction}`;
      log(`\n${page.name} (act-model): "${asked}"`);
      const r: ActModelPage = { page: page.name, url: page.url, instruction: a.instruction, method: a.method, target: a.css, ops: {}, prompt: {}, modelRoundTrip: {}, sameElement: {}, errors: [] };
      result.pages.push(r);
      try {
        await benchOnePage(page.url, a);
      } catch (e) {
        r.errors.push(errText(e));
        log(`  ERROR ${errText(e)}`);
      }
      if (stagehandMisses.length) r.errors.push(...new Set(stagehandMisses.splice(0)));
      // Leftover standing replies would answer nothing else; drop them and the recorded bodies (Stagehand's are large).
      fake.reset();

      async function benchOnePage(url: string, a: ActSpec): Promise<void> {
        await Promise.all([svc.page.goto(url, { waitUntil: "load" }), svcCached.page.goto(url, { waitUntil: "load" }), shPage!.goto(url, { waitUntil: "load" })]);
        await new Promise((ok) => setTimeout(ok, 300));
        topUp();
        const count = (p: Prefix) => fake.requests.filter((q) => prefixOf(q) === p).length;

        // Warm-up, and what each tool chose.
        const svcFirst = ok((await svc.act(asked)) as ActOut, "svc act(instruction)");
        topUp();
        const shFirst = ok((await sh.act(asked)) as ActOut, "stagehand act(instruction)");
        topUp();
        const before = count("svc-cache");
        const miss = await timed(() => svcCached.act(asked) as Promise<ActOut>);
        ok(miss.value, "svc act(instruction) with cacheDir, first call");
        const missModelRequests = count("svc-cache") - before;
        const svcAction = miss.value.actions[0]!;
        const shAction = shFirst.actions[0]!;
        const check = async (who: string, sel: string | undefined, evaluate: (js: string) => Promise<unknown>) => {
          const v = sel ? await evaluate(sameElementJs(sel, a.css)).catch((e: unknown) => `error: ${errText(e)}`) : "no selector";
          r.sameElement[who] = v === true ? true : String(v);
          if (v !== true) r.errors.push(`${who} acted on ${sel ?? "nothing"}, not ${a.css} (${String(v)})`);
        };
        await check("svc", svcFirst.actions[0]?.selector, (js) => svc.page.evaluate(js));
        await check("svc (cache)", svcAction?.selector, (js) => svcCached.page.evaluate(js));
        await check("stagehand", shAction?.selector, (js) => shPage!.evaluate(js));

        const ops: Op[] = [
          { id: "svc.act(instruction)", run: async () => ok((await svc.act(asked)) as ActOut, "svc act(instruction)") },
          { id: "stagehand.act(instruction)", run: async () => ok((await sh.act(asked)) as ActOut, "stagehand act(instruction)") },
          { id: "stagehand.act(action)", run: async () => ok((await sh.act(shAction)) as ActOut, "stagehand act(action)") },
          // svc's act(instruction) = this snapshot + the model round trip + act(action).
          { id: "svc.extract", run: () => svc.extract() },
        ];
        // Cached replay vs act(action) on the same element: both ~10–30 ms and tied to Chromium's frame clock
        // (a click is acknowledged with the next frame), so they get their own, longer interleaved series.
        const replayOps: Op[] = [
          {
            id: "svc.act(instruction) cached",
            run: async () => {
              const out = ok((await svcCached.act(asked)) as ActOut, "svc cached replay");
              replays++;
              if (out.cacheStatus === "HIT") hits++;
            },
          },
          { id: "svc.act(action)", run: async () => ok((await svcCached.act(svcAction)) as ActOut, "svc act(action)") },
          // What a replay adds to act(action): the check that the cached element is still the same one
          // (src/operations/act-cached.ts identity(): resolve the selector, read its role and name).
          {
            id: "svc.diag.replayIdentity",
            run: async () => {
              const el = await resolveTarget(svcCached.page, svcAction.selector);
              await el.frame.session.send("Accessibility.getPartialAXTree", { backendNodeId: await el.backendNodeId, fetchRelatives: false });
            },
          },
          // …and finding the entry: key (sha256) + reading its JSON file from cacheDir.
          {
            id: "svc.diag.replayCacheRead",
            run: async () => {
              const c = new ActCache(cacheDir);
              if (!c.get(c.key(a.instruction, svcCached.page.url(), []))) throw new Error("no cache entry for the instruction");
            },
          },
        ];
        let replays = 0;
        let hits = 0;
        for (const op of ops) await op.run(); // warm-up
        const from = fake.requests.length;
        topUp();
        // Keep the standing reply queued: rounds may make RUNS × 2 requests.
        for (let i = 0; i < runs * 3; i++) fake.script(reply);
        await rounds(ops, runs, r.ops);
        const timedReqs = fake.requests.slice(from);
        const cacheBefore = count("svc-cache");
        for (const op of replayOps) await op.run(); // warm-up (the cached one: its first replay)
        await rounds(replayOps, replayRuns, r.ops);
        r.cache = { missMs: round(miss.ms), missStatus: miss.value.cacheStatus, missModelRequests, replays, hits, replayModelRequests: count("svc-cache") - cacheBefore };
        const acts = (id: string) => r.ops[id]?.time?.runs ?? runs;
        const svcReqs = timedReqs.filter((q) => prefixOf(q) === "svc");
        const shReqs = timedReqs.filter((q) => prefixOf(q) === "stagehand");
        const ps = promptSize(svcReqs, acts("svc.act(instruction)"));
        const pst = promptSize(shReqs, acts("stagehand.act(instruction)"));
        if (ps) r.prompt.svc = ps;
        if (pst) r.prompt.stagehand = pst;
        if (svcReqs.length) r.modelRoundTrip.svc = await roundTrip(fake, svcReqs.at(-1)!, runs, topUp);
        if (shReqs.length) r.modelRoundTrip.stagehand = await roundTrip(fake, shReqs.at(-1)!, runs, topUp);
        for (const [id, o] of Object.entries(r.ops)) if (o.time) log(`  ${id.padEnd(30)} ${fmtMs(o.time.median).padStart(9)}`);
        log(`  prompt: svc ${fmtInt(ps?.tokens)} tokens / ${fmtInt(ps?.chars)} chars, stagehand ${fmtInt(pst?.tokens)} / ${fmtInt(pst?.chars)}; model round trip svc ${fmtMs(r.modelRoundTrip.svc?.median)}, stagehand ${fmtMs(r.modelRoundTrip.stagehand?.median)}`);
        log(`  cache: MISS ${fmtMs(r.cache.missMs)} (${r.cache.missStatus}), ${r.cache.hits}/${r.cache.replays} HIT, ${r.cache.replayModelRequests} model requests during replays; same element: ${JSON.stringify(r.sameElement)}`);
      }
    }
  } finally {
    spec = undefined;
    await Promise.allSettled([svc.close(), svcCached.close(), sh.close()]);
    await fake.close();
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return result;
}

// ——— tables ———

export interface TargetSummary {
  what: string;
  target: string;
  worst?: number;
  geomean?: number;
  verdict: string;
  perPage: Record<string, number | undefined>;
}

const t = (o: OpTime | undefined) => o?.time?.median;
/** Stagehand 3.7.3 handlers/handlerUtils/actHandlerUtils.js waitForDomNetworkQuiet: `setTimeout(resolveDone, 500)` once no request is in flight. */
const STAGEHAND_QUIET_MS = 500;

export function actModelTables(res: ActModelResult, geomean: (xs: Array<number | undefined>) => number | undefined): { md: string; targets: TargetSummary[] } {
  const lines: string[] = [];
  const row = (cells: string[]) => lines.push(`| ${cells.join(" | ")} |`);
  const head = (cells: string[]) => {
    row(cells);
    row(cells.map((_, i) => (i === 0 ? "---" : "---:")));
  };
  const wall: Array<number | undefined> = [];
  const tok: Array<number | undefined> = [];
  const replay: Array<number | undefined> = [];
  const replayCalls: number[] = [];

  lines.push(
    `**act(instruction) with a model** — the same fake model (OpenAI Responses API, zero latency) answers both; both act on the same element (checked). Medians of ${res.runs} runs after a warm-up, interleaved`,
    "",
  );
  head(["page", "instruction", "svc", "Stagehand", "svc/Stagehand (≤ 0.5×)", "svc prompt tokens", "Stagehand prompt tokens", "svc/Stagehand (≤ 0.6×)", "svc prompt chars", "Stagehand prompt chars"]);
  for (const p of res.pages) {
    const svc = t(p.ops["svc.act(instruction)"]);
    const sh = t(p.ops["stagehand.act(instruction)"]);
    const rw = ratio(svc, sh);
    const rt = ratio(p.prompt.svc?.tokens, p.prompt.stagehand?.tokens);
    wall.push(rw);
    tok.push(rt);
    row([p.page, `${p.instruction}`, fmtMs(svc), fmtMs(sh), fmtRatio(rw), fmtInt(p.prompt.svc?.tokens), fmtInt(p.prompt.stagehand?.tokens), fmtRatio(rt), fmtInt(p.prompt.svc?.chars), fmtInt(p.prompt.stagehand?.chars)]);
  }
  lines.push(
    "",
    "Prompt = system text + messages + JSON schema of one model request, o200k_base tokens (gpt-tokenizer). Each tool made one model request per act unless the details below say otherwise.",
  );

  lines.push(
    "",
    `**Cached replay** — svc with \`cacheDir\`: the first act(instruction) is a MISS (one model call) and stores the action; then every call replays it. Replay and act(action) (same element, same browser) interleaved, medians of ${res.replayRuns ?? res.runs} runs after a warm-up`,
    "",
  );
  head(["page", "first call (MISS)", "replay (HIT)", "model requests during replays", "svc act(action), same element", "replay/act(action) (≤ 1.2×)", "replay's identity check", "replay's cache read"]);
  for (const p of res.pages) {
    const rep = t(p.ops["svc.act(instruction) cached"]);
    const det = t(p.ops["svc.act(action)"]);
    const r = ratio(rep, det);
    replay.push(r);
    const c = p.cache;
    if (c) replayCalls.push(c.replayModelRequests);
    row([
      p.page,
      c ? `${fmtMs(c.missMs)} (${c.missStatus ?? "no status"}, ${c.missModelRequests} request${c.missModelRequests === 1 ? "" : "s"})` : "–",
      c ? `${fmtMs(rep)} (${c.hits}/${c.replays} HIT)` : fmtMs(rep),
      c ? String(c.replayModelRequests) : "–",
      fmtMs(det),
      fmtRatio(r),
      fmtMs(t(p.ops["svc.diag.replayIdentity"])),
      fmtMs(t(p.ops["svc.diag.replayCacheRead"])),
    ]);
  }

  lines.push(
    "",
    "A replay is act(action) plus finding the entry in `cacheDir` and checking, on the element it is about to act on, that it still has the recorded role and name (one extra CDP call): the last two columns, each measured alone (the identity column resolves the selector too). Clicks land on Chromium's ~14 ms frame clock, so a few ms extra can move a median by a whole frame.",
  );
  lines.push("", "<details><summary>Where the time goes: snapshot, model round trip, the action itself</summary>", "");
  head(["page", "svc act(instruction)", "svc extract()", "model round trip, svc", "svc act(action)", "Stagehand act(instruction)", "model round trip, Stagehand", "Stagehand act(action)", `svc / (Stagehand − ${STAGEHAND_QUIET_MS} ms)`]);
  for (const p of res.pages) {
    const sh = t(p.ops["stagehand.act(instruction)"]);
    row([
      p.page,
      fmtMs(t(p.ops["svc.act(instruction)"])),
      fmtMs(t(p.ops["svc.extract"])),
      fmtMs(p.modelRoundTrip.svc?.median),
      fmtMs(t(p.ops["svc.act(action)"])),
      fmtMs(t(p.ops["stagehand.act(instruction)"])),
      fmtMs(p.modelRoundTrip.stagehand?.median),
      fmtMs(t(p.ops["stagehand.act(action)"])),
      fmtRatio(ratio(t(p.ops["svc.act(instruction)"]), sh !== undefined && sh > STAGEHAND_QUIET_MS ? sh - STAGEHAND_QUIET_MS : undefined)),
    ]);
  }
  lines.push(
    "",
    "Model round trip: the tool's last request posted again to the fake with plain fetch (loopback HTTP + the fake parsing the prompt and answering), median — the model's share of the wall time at zero latency. " +
      "svc's act(instruction) is roughly extract() + that round trip + act(action). " +
      `Stagehand 3.7.3's act(instruction) starts with waitForDomNetworkQuiet, which resolves only after ${STAGEHAND_QUIET_MS} ms without a network request (a fixed timer, on every call): the last column takes that wait out, to show the ratio does not rest on it.`,
    "",
  );
  const odd = res.pages.filter((p) => p.errors.length || Object.values(p.sameElement).some((v) => v !== true) || Object.values(p.prompt).some((s) => s && s.requestsPerAct !== 1));
  for (const p of odd) {
    const per = Object.entries(p.prompt).map(([k, s]) => `${k} ${s!.requestsPerAct} requests/act`).join(", ");
    lines.push(`- ${p.page}: ${[...p.errors, per].filter(Boolean).join("; ")}`);
  }
  if (odd.length) lines.push("");
  lines.push("</details>");

  const summarizeTarget = (what: string, target: number, ratios: Array<number | undefined>): TargetSummary => {
    const defined = ratios.filter((x): x is number => x !== undefined);
    const worst = defined.length ? Math.max(...defined) : undefined;
    const gm = geomean(ratios);
    return {
      what,
      target: `≤ ${target}×`,
      ...(worst !== undefined ? { worst } : {}),
      ...(gm !== undefined ? { geomean: gm } : {}),
      verdict: defined.length < ratios.length ? `incomplete; worst ${verdict(worst, target)}` : verdict(worst, target),
      perPage: Object.fromEntries(res.pages.map((p, i) => [p.page, ratios[i]])),
    };
  };
  const targets = [
    summarizeTarget("act(instruction) time vs Stagehand (same fake model)", 0.5, wall),
    summarizeTarget("act(instruction) prompt tokens vs Stagehand", 0.6, tok),
    summarizeTarget("cached replay vs act(action)", 1.2, replay),
  ];
  const totalCalls = replayCalls.reduce((s, x) => s + x, 0);
  targets.push({
    what: "model calls during cached replays",
    target: "0",
    verdict: replayCalls.length < res.pages.length ? "incomplete" : totalCalls === 0 ? "met" : `missed (${totalCalls} calls)`,
    perPage: Object.fromEntries(res.pages.map((p) => [p.page, p.cache?.replayModelRequests])),
  });
  return { md: lines.join("\n"), targets };
}
