/**
 * The agent on the fixture site task, svc vs Stagehand 3.7.3, dom mode, both driven by a scripted model at zero
 * latency (docs/performance.md, Agent). Stagehand's loop needs native `function_call` items, which the fake server
 * does not emit, so a small Responses server here answers it with the shortest script a model could follow. Model
 * time is timed on the client; overhead is the rest.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Stagehand } from "@browserbasehq/stagehand";
// svc as built (npm run bench builds first): under tsx, src/ functions sent to the page as source carry
// esbuild's __name() helper (keepNames), and selectOption's page function then fails with
// "__name is not defined" — the order form's Delivery dropdown could not be set.
import { Service } from "../dist/src/index.js";
import { parseSnapshot, startFakeModel, type FakeModel, type FakeReplyFn, type FakeRequest } from "../test/support/fake-model.js";
import { startFixtureServer } from "../test/support/server.js";
import { fmtInt, fmtMs, fmtRatio, median, ratio, round, summarize, tokens, verdict, type Summary } from "./stats.js";
import { ARGS, CHROME, VIEWPORT } from "./tool.js";
import type { TargetSummary } from "./act-model.js";

const MODEL = "openai/gpt-4.1-mini";
const API_KEY = "sk-test";
const TASK = "Order two Boston Ferns with express delivery and tell me the order number";
const VARIABLES = { customer: { value: "Ada Lovelace", description: "the customer's full name" }, email: "ada@example.com" };
const SUMMARY = "Ada Lovelace ordered 2 × Boston Fern, delivery: Express.";
const MAX_STEPS = 20;

type Who = "svc" | "stagehand";
const log = (msg: string) => process.stderr.write(msg + "\n");
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300);

// ——— timing model requests on the client ———

interface ModelCall {
  path: string;
  start: number;
  end: number;
  body: Record<string, any>;
}
const calls: ModelCall[] = [];
let modelOrigins: string[] = [];
let originalFetch: typeof fetch | undefined;

function wrapFetch(): void {
  if (originalFetch) return;
  const orig = (originalFetch = globalThis.fetch);
  globalThis.fetch = (async (input: any, init?: any) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!modelOrigins.some((o) => url.startsWith(o))) return orig(input, init);
    const start = performance.now();
    const res = await orig(input, init);
    const buf = await res.arrayBuffer();
    const end = performance.now();
    let body: Record<string, any> = {};
    try {
      body = JSON.parse(typeof init?.body === "string" ? init.body : typeof input === "object" && "body" in input ? "" : "{}") as Record<string, any>;
    } catch {
      // not JSON: count nothing
    }
    calls.push({ path: new URL(url).pathname, start, end, body });
    return new Response(buf, { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}
function unwrapFetch(): void {
  if (originalFetch) globalThis.fetch = originalFetch;
  originalFetch = undefined;
}

/** The full text of one request as a model receives it (Responses or Chat Completions body). */
export function requestText(body: Record<string, any>): string {
  const parts: string[] = [];
  if (typeof body.instructions === "string") parts.push(body.instructions);
  if (typeof body.system === "string") parts.push(body.system);
  const input: any[] = typeof body.input === "string" ? [body.input] : (body.input ?? body.messages ?? []);
  for (const item of input) {
    if (typeof item === "string") parts.push(item);
    else if (item.type === "function_call") parts.push(`${item.name} ${item.arguments}`);
    else if (item.type === "function_call_output") parts.push(typeof item.output === "string" ? item.output : JSON.stringify(item.output));
    else if (typeof item.content === "string") parts.push(item.content);
    else if (Array.isArray(item.content)) for (const c of item.content) if (typeof c.text === "string") parts.push(c.text);
    if (Array.isArray(item.tool_calls)) for (const tc of item.tool_calls) parts.push(`${tc.function?.name} ${tc.function?.arguments}`);
  }
  if (Array.isArray(body.tools) && body.tools.length) parts.push(JSON.stringify(body.tools));
  const schema = body.text?.format?.schema ?? body.response_format?.json_schema?.schema;
  if (schema) parts.push(JSON.stringify(schema));
  return parts.join("\n");
}

// ——— svc's scripted model (fake server) ———

const step = (tool: string, args: Record<string, unknown>, reasoning: string) => ({ reasoning, tool, args });

function lineOf(req: FakeRequest, role: string, name: string): { ref: string; value?: string } | undefined {
  const l = parseSnapshot(req.snapshot).find((x) => x.ref && x.role === role && x.name === name);
  return l?.ref ? { ref: l.ref, ...(l.value !== undefined ? { value: l.value } : {}) } : undefined;
}
function refOf(req: FakeRequest, role: string, name: string): string {
  const l = lineOf(req, role, name);
  if (!l) throw new Error(`svc brain: no "${role} ${name}" in the outline`);
  return l.ref;
}

/** dom mode: the same decisions as test/e2e/agent-support.ts siteBrain. */
function svcBrain(start: string): FakeReplyFn {
  return (req) => {
    const url = req.url ?? "";
    if (url.includes("/site/index.html")) {
      if (/plant for "fern"/.test(req.snapshot)) return step("perform", { ref: refOf(req, "link", "Boston Fern"), method: "click", arguments: [] }, "open Boston Fern");
      const box = lineOf(req, "searchbox", "Search plants");
      if (box && box.value !== "fern") return step("perform", { ref: box.ref, method: "fill", arguments: ["fern"] }, "search");
      return step("keys", { key: "Enter" }, "submit the search");
    }
    if (url.includes("/site/item.html")) return step("perform", { ref: refOf(req, "link", "Order this plant"), method: "click", arguments: [] }, "order it");
    if (url.includes("/site/order.html")) {
      const name = lineOf(req, "textbox", "Your name");
      if (name && !name.value) {
        const fields = [
          { ref: name.ref, value: "%customer%" },
          { ref: refOf(req, "textbox", "Email"), value: "%email%" },
          { ref: refOf(req, "spinbutton", "Quantity"), value: "2" },
          { ref: refOf(req, "combobox", "Delivery"), value: "Express" },
        ];
        return step("fillForm", { fields }, "fill the order form");
      }
      return step("perform", { ref: refOf(req, "button", "Place order"), method: "click", arguments: [] }, "place the order");
    }
    if (url.includes("/site/confirm.html")) {
      const number = /Order number: (GS-\d+)/.exec(req.snapshot)?.[1] ?? "unknown";
      return step("done", { message: `Order ${number} is placed.`, success: true }, "the confirmation shows the order number");
    }
    return step("goto", { url: start }, "open the shop");
  };
}

// ——— Stagehand's scripted model (Responses API with tool calls) ———

interface Target {
  role: string;
  name: string;
  method: string;
  args: string[];
}
/** What each act instruction the script gives means (for the act sub-call's reply). */
const ACTS: Record<string, Target> = {
  "type fern into the Search plants search box": { role: "searchbox", name: "Search plants", method: "fill", args: ["fern"] },
  "click the Boston Fern link": { role: "link", name: "Boston Fern", method: "click", args: [] },
  "click the Order this plant link": { role: "link", name: "Order this plant", method: "click", args: [] },
  "click the Place order button": { role: "button", name: "Place order", method: "click", args: [] },
};
const FORM: Array<{ action: string; target: Target }> = [
  { action: "type %customer% into the Your name input", target: { role: "textbox", name: "Your name", method: "fill", args: ["%customer%"] } },
  { action: "type %email% into the Email input", target: { role: "textbox", name: "Email", method: "fill", args: ["%email%"] } },
  { action: "type 2 into the Quantity input", target: { role: "spinbutton", name: "Quantity", method: "fill", args: ["2"] } },
  { action: "select Express in the Delivery dropdown", target: { role: "combobox", name: "Delivery", method: "selectOptionFromDropdown", args: ["Express"] } },
];
/** The loop's tool calls, in order; then a text answer; then the forced done. */
const SCRIPT: Array<{ name: string; args: Record<string, unknown> }> = [
  { name: "ariaTree", args: {} },
  { name: "act", args: { action: "type fern into the Search plants search box" } },
  { name: "keys", args: { method: "press", value: "Enter" } },
  { name: "act", args: { action: "click the Boston Fern link" } },
  { name: "act", args: { action: "click the Order this plant link" } },
  { name: "fillForm", args: { fields: FORM.map((f) => ({ action: f.action })) } },
  { name: "act", args: { action: "click the Place order button" } },
  { name: "ariaTree", args: {} },
];

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function textOf(body: Record<string, any>): string {
  return requestText({ ...body, tools: undefined, text: undefined });
}
/** `[0-12] textbox: Your name` (states may follow) → 0-12. */
function idOf(tree: string, t: Target): string {
  // Stagehand names some roles after the tag: a native <select> is `select: Delivery`.
  const roles = ({ combobox: "combobox|select", spinbutton: "spinbutton|textbox", searchbox: "searchbox|textbox" } as Record<string, string>)[t.role] ?? esc(t.role);
  const m = new RegExp(`^\\s*\\[(\\d+-\\d+)\\] (?:${roles}): ${esc(t.name)}\\b`, "m").exec(tree);
  if (!m) throw new Error(`no "${t.role}: ${t.name}" line in the tree Stagehand sent (lines naming it: ${tree.split("\n").filter((l) => /^\s*\[/.test(l) && l.includes(t.name)).map((l) => l.trim()).slice(0, 3).join(" | ")})`);
  return m[1]!;
}

interface StagehandModel {
  server: Server;
  origin: string;
  misses: string[];
  close(): Promise<void>;
}

async function startStagehandModel(): Promise<StagehandModel> {
  const misses: string[] = [];
  let n = 0;
  const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, total_tokens: input + output, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
  const answer = (body: Record<string, any>): any[] => {
    const id = ++n;
    const call = (name: string, args: unknown) => [{ type: "function_call", id: `fc_${id}`, call_id: `call_${id}`, name, arguments: JSON.stringify(args), status: "completed" }];
    const text = (t: string) => [{ type: "message", id: `msg_${id}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: t, annotations: [] }] }];
    const tools: any[] = body.tools ?? [];
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    if (tools.length === 1 && tools[0].name === "done") {
      const outputs = input.filter((i) => i.type === "function_call_output").map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output)));
      const number = outputs.map((o) => /Order number: (GS-\d+)/.exec(o)?.[1]).find(Boolean) ?? "unknown";
      return call("done", { reasoning: `Order ${number} is placed.`, taskComplete: true });
    }
    if (tools.length) {
      const k = input.filter((i) => i.type === "function_call").length;
      const next = SCRIPT[k];
      if (next) return call(next.name, next.args);
      const last = input.filter((i) => i.type === "function_call_output").at(-1);
      const out = last ? (typeof last.output === "string" ? last.output : JSON.stringify(last.output)) : "";
      const number = /Order number: (GS-\d+)/.exec(out)?.[1] ?? "unknown";
      return text(`Order ${number} is placed.`);
    }
    // A sub-call (act or observe) asking for JSON.
    const props = body.text?.format?.schema?.properties ?? {};
    const user = textOf(body);
    try {
      if ("elements" in props) {
        return text(JSON.stringify({ elements: FORM.map((f) => ({ elementId: idOf(user, f.target), description: `${f.target.role} ${f.target.name}`, method: f.target.method, arguments: f.target.args })) }));
      }
      const instruction = Object.keys(ACTS).find((a) => user.includes(a));
      if (!instruction) throw new Error("stagehand script: an act sub-call for no instruction of the script");
      const t = ACTS[instruction]!;
      return text(JSON.stringify({ action: { elementId: idOf(user, t), description: `${t.role} ${t.name}`, method: t.method, arguments: t.args }, twoStep: false }));
    } catch (e) {
      misses.push(errText(e));
      return text(JSON.stringify("elements" in props ? { elements: [] } : { action: null, twoStep: false }));
    }
  };
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c));
    req.on("end", () => {
      try {
        const body = JSON.parse(raw) as Record<string, any>;
        if (body.stream) throw new Error("stagehand script: streaming is not scripted");
        const output = answer(body);
        const text = JSON.stringify(output);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: `resp_${n}`, object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", model: body.model, output, usage: usage(Math.ceil(raw.length / 4), Math.ceil(text.length / 4)) }));
      } catch (e) {
        misses.push(errText(e));
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: errText(e), type: "server_error", param: null, code: null } }));
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    origin,
    misses,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

// ——— the run ———

export interface AgentRunSample {
  wallMs: number;
  modelMs: number;
  overheadMs: number;
  /** Requests to the agent's model (= steps). */
  steps: number;
  /** Other model requests (Stagehand's act / observe sub-calls). */
  subCalls: number;
  overheadPerStepMs: number;
  stepOverheadMs: number[];
  /** o200k tokens of each agent request, in order; and of all requests of the run. */
  stepTokens: number[];
  totalTokens: number;
  totalChars: number;
}

export interface AgentToolResult {
  runs: AgentRunSample[];
  /** The tools the agent called, in order (from the last run). */
  tools: string[];
  steps: number;
  subCalls: number;
  wall: Summary;
  model: Summary;
  overhead: Summary;
  /** Median over runs of overhead / steps. */
  overheadPerStep: Summary;
  /** Median over every step of every run. */
  stepOverheadMedian: number;
  /** Mean over the steps of one run (the last) of each agent request's tokens. */
  tokensPerAgentRequest: number;
  /** All tokens a run sends (sub-calls included) / steps. */
  tokensPerStep: number;
  tokensPerTask: number;
  charsPerTask: number;
  firstRequestTokens: number;
  lastRequestTokens: number;
  success: boolean;
  message: string;
}

export interface AgentResult {
  date: string;
  runs: number;
  task: string;
  startUrl: string;
  launchMs: Record<string, number>;
  tools: Partial<Record<Who, AgentToolResult>>;
  errors: string[];
}

function sample(wallStart: number, wallEnd: number, prefix: string, from: number): AgentRunSample {
  // Stagehand's tools call the agent's model too (executionModel defaults to model): its loop requests are
  // the ones carrying tools (the forced done included); svc's agent requests are all structured output.
  const all = calls.slice(from).filter((c) => c.path.startsWith(`/${prefix}/`) || c.path.startsWith(`/${prefix}-agent/`));
  const isAgent = (c: ModelCall) => c.path.startsWith(`/${prefix}-agent/`) && (prefix === "svc" || (Array.isArray(c.body.tools) && c.body.tools.length > 0));
  const agent = all.filter(isAgent);
  const modelMs = all.reduce((s, c) => s + (c.end - c.start), 0);
  const stepOverheadMs: number[] = [];
  for (let i = 0; i < agent.length; i++) {
    const from = i === 0 ? wallStart : agent[i]!.start;
    const to = i + 1 < agent.length ? agent[i + 1]!.start : wallEnd;
    const inModel = all.filter((c) => c.start >= from && c.start < to).reduce((s, c) => s + (c.end - c.start), 0);
    stepOverheadMs.push(round(to - from - inModel));
  }
  const texts = all.map((c) => requestText(c.body));
  const wallMs = wallEnd - wallStart;
  return {
    wallMs: round(wallMs),
    modelMs: round(modelMs),
    overheadMs: round(wallMs - modelMs),
    steps: agent.length,
    subCalls: all.length - agent.length,
    overheadPerStepMs: round((wallMs - modelMs) / Math.max(1, agent.length)),
    stepOverheadMs,
    stepTokens: agent.map((c) => tokens(requestText(c.body))),
    totalTokens: texts.reduce((s, t) => s + tokens(t), 0),
    totalChars: texts.reduce((s, t) => s + t.length, 0),
  };
}

export async function benchAgent(runs: number): Promise<AgentResult> {
  const fixtures = await startFixtureServer();
  const fake: FakeModel = await startFakeModel({ latencyMs: 0 });
  const shModel = await startStagehandModel();
  modelOrigins = [fake.origin, shModel.origin];
  wrapFetch();
  const startUrl = fixtures.url("site/index.html");
  const result: AgentResult = { date: new Date().toISOString(), runs, task: TASK, startUrl, launchMs: {}, tools: {}, errors: [] };
  const launchOpts = { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT };
  const svcModel = { modelName: MODEL, apiKey: API_KEY, baseURL: fake.baseURL("openai", "/svc-agent") };
  const svc = new Service({ verbose: 0, model: svcModel, localBrowserLaunchOptions: launchOpts });
  // Stagehand's own model (for act/observe sub-calls) on `/stagehand/v1`, its agent's on `/stagehand-agent/v1`.
  const sh = new Stagehand({ env: "LOCAL", verbose: 0, disablePino: true, model: { modelName: MODEL, apiKey: API_KEY, baseURL: `${shModel.origin}/stagehand/v1` } as never, localBrowserLaunchOptions: launchOpts });
  const brain = svcBrain(startUrl);
  const topUp = () => {
    while (fake.queued < 40) fake.script(brain);
  };
  const samples: Record<Who, AgentRunSample[]> = { svc: [], stagehand: [] };
  const last: Partial<Record<Who, { tools: string[]; success: boolean; message: string }>> = {};
  try {
    const t0 = performance.now();
    await svc.init();
    result.launchMs.svc = round(performance.now() - t0);
    const t1 = performance.now();
    await sh.init();
    result.launchMs.stagehand = round(performance.now() - t1);
    const shPage = sh.context.pages()[0]!;

    const runOnce = async (who: Who, keep: boolean): Promise<void> => {
      const from = calls.length;
      if (who === "svc") {
        await svc.page.goto(startUrl, { waitUntil: "load" });
        topUp();
        const agent = svc.agent({ model: svcModel });
        const a = performance.now();
        const r = await agent.execute({ instruction: TASK, maxSteps: MAX_STEPS, variables: VARIABLES });
        const b = performance.now();
        const shown = (await svc.page.evaluate(`document.querySelector("#summary")?.textContent ?? ""`)) as string;
        if (!r.success || shown !== SUMMARY) throw new Error(`svc agent did not finish the task: ${r.message} (page: ${shown})`);
        if (keep) samples.svc.push(sample(a, b, "svc", from));
        last.svc = { tools: r.actions.map((x) => x.type), success: r.success, message: r.message };
      } else {
        await shPage.goto(startUrl, { waitUntil: "load" });
        const agent = sh.agent({ mode: "dom", model: { modelName: MODEL, apiKey: API_KEY, baseURL: `${shModel.origin}/stagehand-agent/v1` } as never });
        const a = performance.now();
        const r = await agent.execute({ instruction: TASK, maxSteps: MAX_STEPS, variables: VARIABLES } as never);
        const b = performance.now();
        const shown = (await shPage.evaluate(`document.querySelector("#summary")?.textContent ?? ""`)) as string;
        if (shModel.misses.length) throw new Error(`stagehand script: ${[...new Set(shModel.misses.splice(0))].join("; ")}`);
        if (!r.success || shown !== SUMMARY) throw new Error(`stagehand agent did not finish the task: ${r.message} (page: ${shown})`);
        if (keep) samples.stagehand.push(sample(a, b, "stagehand", from));
        last.stagehand = { tools: (r.actions as Array<{ type: string }>).map((x) => x.type), success: r.success, message: r.message };
      }
    };

    const dead = new Set<Who>();
    const attempt = async (who: Who, keep: boolean) => {
      if (dead.has(who)) return;
      try {
        await runOnce(who, keep);
      } catch (e) {
        dead.add(who);
        result.errors.push(`${who}: ${errText(e)}`);
        log(`  ${who}: ERROR ${errText(e)}`);
      }
    };
    log(`\nagent on the fixture site: "${TASK}"`);
    await attempt("svc", false); // warm-up
    await attempt("stagehand", false);
    for (let r = 0; r < runs; r++) {
      const order: Who[] = r % 2 ? ["stagehand", "svc"] : ["svc", "stagehand"];
      for (const who of order) await attempt(who, true);
    }
    for (const who of ["svc", "stagehand"] as const) {
      const xs = samples[who];
      if (!xs.length) continue;
      const lastRun = xs.at(-1)!;
      const r: AgentToolResult = {
        runs: xs,
        tools: last[who]?.tools ?? [],
        steps: median(xs.map((x) => x.steps)),
        subCalls: median(xs.map((x) => x.subCalls)),
        wall: summarize(xs.map((x) => x.wallMs)),
        model: summarize(xs.map((x) => x.modelMs)),
        overhead: summarize(xs.map((x) => x.overheadMs)),
        overheadPerStep: summarize(xs.map((x) => x.overheadPerStepMs)),
        stepOverheadMedian: round(median(xs.flatMap((x) => x.stepOverheadMs))),
        tokensPerAgentRequest: round(lastRun.stepTokens.reduce((s, t) => s + t, 0) / Math.max(1, lastRun.steps)),
        tokensPerStep: round(lastRun.totalTokens / Math.max(1, lastRun.steps)),
        tokensPerTask: lastRun.totalTokens,
        charsPerTask: lastRun.totalChars,
        firstRequestTokens: lastRun.stepTokens[0] ?? 0,
        lastRequestTokens: lastRun.stepTokens.at(-1) ?? 0,
        success: last[who]?.success ?? false,
        message: last[who]?.message ?? "",
      };
      result.tools[who] = r;
      log(
        `  ${who.padEnd(9)} steps ${r.steps} (+${r.subCalls} sub-calls)  wall ${fmtMs(r.wall.median)}  model ${fmtMs(r.model.median)}  overhead ${fmtMs(r.overhead.median)} (${fmtMs(r.overheadPerStep.median)}/step, step median ${fmtMs(r.stepOverheadMedian)})  tokens/step ${fmtInt(r.tokensPerStep)} (agent requests ${fmtInt(r.tokensPerAgentRequest)}), task ${fmtInt(r.tokensPerTask)}`,
      );
    }
  } finally {
    await Promise.allSettled([svc.close(), sh.close()]);
    unwrapFetch();
    calls.length = 0;
    await Promise.allSettled([fake.close(), shModel.close(), fixtures.close()]);
  }
  return result;
}

// ——— tables ———

export function agentTables(res: AgentResult): { md: string; targets: TargetSummary[] } {
  const lines: string[] = [];
  const row = (cells: string[]) => lines.push(`| ${cells.join(" | ")} |`);
  const head = (cells: string[]) => {
    row(cells);
    row(cells.map((_, i) => (i === 0 ? "---" : "---:")));
  };
  const s = res.tools.svc;
  const h = res.tools.stagehand;
  const rOver = ratio(s?.overheadPerStep.median, h?.overheadPerStep.median);
  const rStep = ratio(s?.stepOverheadMedian, h?.stepOverheadMedian);
  const rTask = ratio(s?.overhead.median, h?.overhead.median);
  const rTok = ratio(s?.tokensPerStep, h?.tokensPerStep);
  const rTokAgent = ratio(s?.tokensPerAgentRequest, h?.tokensPerAgentRequest);
  const rTokTask = ratio(s?.tokensPerTask, h?.tokensPerTask);
  lines.push(
    `**Agent** — the fixture site task (fixtures/pages/site: search "fern" → open Boston Fern → fill and submit the order form → read the order number), dom mode, each tool driven by a scripted model at zero latency (svc: the fake model server; Stagehand: a scripted Responses API with tool calls). Medians of ${res.runs} runs after a warm-up, alternating`,
    "",
  );
  head(["", "svc", "Stagehand", "svc/Stagehand", "target"]);
  row(["steps (agent model requests)", fmtInt(s?.steps), fmtInt(h?.steps), fmtRatio(ratio(s?.steps, h?.steps)), ""]);
  row(["other model requests (sub-calls)", fmtInt(s?.subCalls), fmtInt(h?.subCalls), "", ""]);
  row(["wall time of execute()", fmtMs(s?.wall.median), fmtMs(h?.wall.median), fmtRatio(ratio(s?.wall.median, h?.wall.median)), ""]);
  row(["time inside the model (client round trips)", fmtMs(s?.model.median), fmtMs(h?.model.median), "", ""]);
  row(["overhead outside the model, whole task", fmtMs(s?.overhead.median), fmtMs(h?.overhead.median), fmtRatio(rTask), ""]);
  row(["**overhead per step** (task overhead / steps)", fmtMs(s?.overheadPerStep.median), fmtMs(h?.overheadPerStep.median), fmtRatio(rOver), "≤ 0.5×"]);
  row(["overhead per step, median of single steps", fmtMs(s?.stepOverheadMedian), fmtMs(h?.stepOverheadMedian), fmtRatio(rStep), ""]);
  row(["**tokens sent per step** (all requests / steps)", fmtInt(s?.tokensPerStep), fmtInt(h?.tokensPerStep), fmtRatio(rTok), "≤ 0.6×"]);
  row(["tokens per agent request (mean)", fmtInt(s?.tokensPerAgentRequest), fmtInt(h?.tokensPerAgentRequest), fmtRatio(rTokAgent), ""]);
  row(["tokens per task (all requests)", fmtInt(s?.tokensPerTask), fmtInt(h?.tokensPerTask), fmtRatio(rTokTask), ""]);
  row(["first / last agent request, tokens", s ? `${fmtInt(s.firstRequestTokens)} / ${fmtInt(s.lastRequestTokens)}` : "–", h ? `${fmtInt(h.firstRequestTokens)} / ${fmtInt(h.lastRequestTokens)}` : "–", "", ""]);
  lines.push(
    "",
    `Tools called — svc: ${s?.tools.join(", ") ?? "–"}; Stagehand: ${h?.tools.join(", ") ?? "–"}.`,
    "",
    "Time inside the model = each model request timed on the client (globalThis.fetch wrapped: from the call to the response body fully read, loopback HTTP and the scripted server included); overhead = execute()'s wall time minus that. " +
      "A step is one request to the agent's model: svc makes one per tool call; Stagehand one per tool call, one for the text answer that ends its AI SDK loop, and one forced `done` call. Stagehand's act/fillForm tools make their own model calls (act, observe), counted in its tokens per step. " +
      "Stagehand does not see the page unless it calls ariaTree (its script looks at the start and on the confirmation page); svc's steps each carry the current page outline. " +
      "Tokens: o200k_base of each request's full text (system + every message, tool calls and outputs included + tools' JSON Schemas + the response schema).",
  );
  if (res.errors.length) lines.push("", ...res.errors.map((e) => `- ${e}`));
  const mk = (what: string, target: number, r: number | undefined): TargetSummary => ({ what, target: `≤ ${target}×`, ...(r !== undefined ? { worst: r, geomean: r } : {}), verdict: verdict(r, target), perPage: { "fixtures/site": r } });
  return {
    md: lines.join("\n"),
    targets: [mk("agent overhead per step outside the model vs Stagehand", 0.5, rOver), mk("agent tokens sent per step vs Stagehand", 0.6, rTok)],
  };
}
