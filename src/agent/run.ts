/**
 * One agent run: steps of ONE structured-output model call (which tool, which arguments, over the current page) then
 * that tool. It stops when the model calls `done`, at a budget or an abort, and always ends with a run_end event. A tool
 * that fails or overruns toolTimeout reports an error line to the model and the run goes on (run-tool.ts). Cache replay
 * and storing: run-cache.ts.
 */
import { describeDialog } from "../browser/dialogs.js";
import { describeDownload, type Download } from "../browser/downloads.js";
import type { Page } from "../browser/page.js";
import { errorMessage } from "../errors.js";
import type { AgentAction, AgentResultData, AgentStopReason, AgentUsage, RunEvent } from "../events.js";
import type { LLMClient, ModelImage, ModelUsage } from "../model/types.js";
import type { OperationContext } from "../operations/context.js";
import { infer, type InferenceContext, type InferenceRecord } from "../operations/inference.js";
import type { PageSnapshots } from "../operations/snapshots.js";
import { promptVariables } from "../operations/variables.js";
import type { SearchBackend } from "../platform/search.js";
import type { MetricOperation } from "../records.js";
import { abortable } from "../util/abort.js";
import type { Secrets } from "../util/secrets.js";
import type { AgentCacheSession } from "./cache.js";
import { RunCache, type FinalAnswer } from "./run-cache.js";
import { callStepHook, callTool } from "./run-tool.js";
import { type AgentStepEnd, type ResolvedAgentConfig, type ResolvedExecuteOptions, type StepEndHook } from "./options.js";
import { agentSystemPrompt, stepMessage, type HistoryLine } from "./prompt.js";
import { LOOP_NOTE_TOKENS, LoopDetector, pageState, type LoopFinding } from "./loop-detect.js";
import { promptTokens, snapshotBudget } from "../operations/budget.js";
import { checkResult, stopMessage } from "./result.js";
import { cuaLoop, cuaSystemPrompt, cuaTools } from "./cua.js";
import { domTools } from "./tools-dom.js";
import { hybridTools, stepScreenshot } from "./tools-hybrid.js";
import { NO_SEARCH_BACKEND, searchTool } from "./tools-search.js";
import { dialogTool, type DialogControl } from "./tools-dialog.js";
import { askHumanTool, humanAsker } from "./tools-human.js";
import { pageToolLines, pageTools } from "./tools-webmcp.js";
import { parseStep, stepOutput, type AgentTool, type ParsedStep, type ToolEnv, type ToolOutcome } from "./tools.js";

/** What the service gives an agent: the browser, the models, and where usage and history go. */
export interface AgentHost {
  page(): Page;
  snapshots: PageSnapshots;
  /** The client for a model option (undefined: the service's model); it masks the session's secrets in all it sends. */
  client(model: unknown): LLMClient;
  /** The session's secrets: the run's variables join them; events, history, cache and logs are masked with them. */
  secrets: Secrets;
  onUsage(op: MetricOperation, usage: ModelUsage, model: string): void;
  /** Every model exchange (logInferenceToFile; the log masks it), images left out. */
  onInference?(record: InferenceRecord): void;
  /** A warning for the service's log (a cache that cannot be written); the run goes on. */
  warn?(message: string): void;
  systemPrompt: string | undefined;
  selfHeal: boolean;
  /** The web search backend for useSearch (undefined, or returning undefined: none configured). */
  search?(): SearchBackend | undefined;
  /** The browser's dialog handler: the dialog tool and the dialogs reported to the next step. */
  dialogs?: DialogControl;
  /** Downloads that finish during the run are reported to the next step (where each went). */
  downloads?: { onDownload(listener: (d: Download) => void): () => void };
}

/** An event without the fields every event gets (runId, elapsedMs). */
export type EventBody = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "runId" | "elapsedMs"> : never) : never;

/** `search`: the backend behind the search tool (useSearch); without one the tool is absent. `dialogs`: add the dialog tool. */
export function toolsFor(config: ResolvedAgentConfig, options: ResolvedExecuteOptions, search?: SearchBackend, dialogs = false): AgentTool[] {
  if (config.mode === "cua") return cuaTools();
  const tools = domTools(options.output);
  const done = tools.pop()!;
  return [
    ...tools,
    ...(config.mode === "hybrid" ? hybridTools() : []),
    ...(search && options.useSearch ? [searchTool(search)] : []),
    ...(dialogs ? [dialogTool] : []),
    ...(options.askHuman ? [askHumanTool] : []),
    done,
  ];
}

export interface RunSetup {
  host: AgentHost;
  config: ResolvedAgentConfig;
  options: ResolvedExecuteOptions;
  emit(event: EventBody): void;
  cache?: AgentCacheSession;
}

const used = (u: AgentUsage) => u.input_tokens + u.output_tokens;

export async function runAgent({ host, config, options, emit, cache }: RunSetup): Promise<AgentResultData> {
  const vars = options.variables;
  const search = options.useSearch && config.mode !== "cua" ? host.search?.() : undefined;
  const tools = toolsFor(config, options, search, host.dialogs !== undefined);
  // Every model call of the run goes through the service's masking clients: page text, URLs and errors may show values.
  const client = host.client(config.model);
  let execClient: LLMClient | undefined;
  const executionClient = () => (execClient ??= host.client(config.executionModel));
  const output = stepOutput(tools);
  const system = agentSystemPrompt(tools, config.mode, config.systemPrompt);
  const totals: AgentUsage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cached_input_tokens: 0, inference_time_ms: 0 };
  const actions: AgentAction[] = [];
  const history: HistoryLine[] = [];
  const runCache = new RunCache(cache);
  let detail: { step: number; tool: string; text: string } | undefined;
  let note: string | undefined;
  let lastUrl: string | undefined;
  let step = 0;
  let stop: AgentStopReason | undefined;
  let final: FinalAnswer | undefined;
  const loops = options.loopDetection ? new LoopDetector(options.loopDetection) : undefined;
  /** The model's last step, waiting for the next page to tell whether it changed anything. */
  let pending: { tool: string; args: unknown; before: string } | undefined;
  let loopFound: LoopFinding | undefined;

  const controller = new AbortController();
  const halt = (why: AgentStopReason) => {
    stop ??= why;
    controller.abort();
  };
  const onUserAbort = () => halt("aborted");
  options.signal?.addEventListener("abort", onUserAbort, { once: true });
  if (options.signal?.aborted) halt("aborted");
  const deadline = options.timeoutMs !== undefined ? setTimeout(() => halt("timeout"), options.timeoutMs) : undefined;

  const onUsage = (op: MetricOperation, model: string) => (u: ModelUsage) => {
    totals.input_tokens += u.inputTokens;
    totals.output_tokens += u.outputTokens;
    totals.reasoning_tokens! += u.reasoningTokens;
    totals.cached_input_tokens! += u.cachedInputTokens;
    totals.inference_time_ms += u.inferenceTimeMs;
    host.onUsage(op, u, model);
    emit({ type: "usage", step, operation: op, input: u.inputTokens, output: u.outputTokens, reasoning: u.reasoningTokens, cached: u.cachedInputTokens, inferenceMs: u.inferenceTimeMs, totals: { ...totals } });
  };
  const inference = (op: MetricOperation, c: LLMClient, signal: AbortSignal): InferenceContext => ({
    client: c,
    onUsage: onUsage(op, c.modelName),
    ...(host.onInference ? { onInference: (r: InferenceRecord) => host.onInference!({ ...r, messages: r.messages.map(({ images: _images, ...m }) => m) }) } : {}),
    signal,
  });
  const ask = options.askHuman && humanAsker(options.askHuman, options.askHumanTimeoutMs, emit);
  const env = (page: Page, refs: ToolEnv["refs"], signal: AbortSignal, deadline: number): ToolEnv => ({
    page,
    refs,
    snapshots: host.snapshots,
    variables: vars,
    secrets: host.secrets,
    signal,
    deadline,
    selfHeal: host.selfHeal,
    highlightCursor: options.highlightCursor,
    dialogs: host.dialogs,
    askHuman: ask && ((message, s) => ask(message, step, s)),
    operation: (op): OperationContext => ({
      page,
      snapshots: host.snapshots,
      variables: vars,
      secrets: host.secrets,
      mask: host.secrets.mask,
      ...(host.systemPrompt ? { systemPrompt: host.systemPrompt } : {}),
      inference: inference(op, executionClient(), signal),
      deadline,
    }),
  });
  const notePage = () => {
    const url = host.page().url();
    if (url !== lastUrl) emit({ type: "page", step, url });
    lastUrl = url;
    return url;
  };

  const runTool = (page: Page, refs: ToolEnv["refs"], tool: AgentTool, args: unknown): Promise<ToolOutcome> =>
    callTool({ page, tool, args, options, runSignal: controller.signal, env: (signal, deadline) => env(page, refs, signal, deadline) });
  const stepEnd = (hook: StepEndHook, info: Omit<AgentStepEnd, "signal">): Promise<void> =>
    callStepHook({ hook, info, runSignal: controller.signal, warn: (message) => emit({ type: "log", level: "warn", message }) });

  /** Emits tool_call, runs the tool, emits tool_result, records the action and the history line. */
  const execute = async (page: Page, refs: ToolEnv["refs"], call: ParsedStep, cached: boolean): Promise<ToolOutcome> => {
    const t0 = performance.now();
    emit({ type: "tool_call", step, tool: call.tool.name, args: call.args, reasoning: call.reasoning, ...(cached ? { cached: true } : {}) });
    const outcome = await runTool(page, refs, call.tool, call.args);
    const timeMs = Math.round(performance.now() - t0);
    emit({ type: "tool_result", step, tool: call.tool.name, ok: outcome.ok, summary: outcome.summary, timeMs });
    const before = lastUrl;
    const url = notePage();
    actions.push({
      type: call.tool.name,
      reasoning: call.reasoning,
      taskCompleted: Boolean(outcome.done),
      action: call.tool.describe?.(call.args, refs) ?? call.tool.name,
      timeMs,
      pageUrl: url,
      ...(outcome.instruction ? { instruction: outcome.instruction } : {}),
      ...(outcome.pageText !== undefined ? { pageText: outcome.pageText } : {}),
      args: call.args,
      ok: outcome.ok,
      result: outcome.summary,
      step,
      ...(cached ? { cached: true } : {}),
      ...(outcome.image ? { image: outcome.image } : {}),
    });
    history.push({ step, tool: call.tool.name, args: call.args, ok: outcome.ok, summary: outcome.summary, ...(url !== before ? { url } : {}) });
    detail = outcome.detail ? { step, tool: call.tool.name, text: outcome.detail } : undefined;
    if (outcome.done) final = outcome.done;
    await runCache.record(call.tool.name, outcome, cached, () => host.page());
    if (options.onStepEnd) await stepEnd(options.onStepEnd, { step, tool: call.tool.name, ok: outcome.ok, url });
    return outcome;
  };

  /** A cached run's steps first (run-cache.ts), each a step of this run. */
  const replay = async (): Promise<void> => {
    const end = await runCache.replay({
      tools,
      steps: () => step,
      nextStep: () => {
        if (step >= options.maxSteps) return false;
        step++;
        emit({ type: "step_start", step });
        return true;
      },
      execute: (call) => execute(host.page(), undefined, call, true),
      page: () => host.page(),
      log: (message) => emit({ type: "log", level: "info", message }),
    });
    if (end.note) note = end.note;
    if (end.final) final = end.final;
  };

  /** cua mode: the provider's computer-use tool instead of structured-output steps (see cua.ts). */
  const cua = () =>
    cuaLoop({
      // After a replay the computer-use conversation starts on the replayed page, told what was done.
      instruction: note ? `${options.instruction}\n\n${note}` : options.instruction,
      system: cuaSystemPrompt(config.systemPrompt, vars, options.maxSteps),
      client: host.client(config.model),
      signal: controller.signal,
      page: () => host.page(),
      begin: () => {
        if (step >= options.maxSteps) return void (stop = "maxSteps"), false;
        if (options.maxTokens !== undefined && used(totals) >= options.maxTokens) return void (stop = "maxTokens"), false;
        step++;
        emit({ type: "step_start", step });
        notePage();
        return true;
      },
      overTokens: () => {
        if (options.maxTokens === undefined || used(totals) <= options.maxTokens) return false;
        stop = "maxTokens";
        return true;
      },
      onUsage: (u) => onUsage("agent", client.modelName)(u),
      execute: (call) => execute(host.page(), undefined, call, false),
      finished: () => Boolean(final),
    });

  const loop = async (): Promise<void> => {
    await replay();
    if (final) return;
    if (config.mode === "cua") return cua();
    while (!final) {
      if (step >= options.maxSteps) return void (stop = "maxSteps");
      if (options.maxTokens !== undefined && used(totals) >= options.maxTokens) return void (stop = "maxTokens");
      const page = host.page();
      // The page's own tools (WebMCP) join this step's, before done.
      const offered = await abortable(pageTools(page), controller.signal);
      const stepTools = offered.length ? [...tools.slice(0, -1), ...offered, tools.at(-1)!] : tools;
      const stepSchema = offered.length ? stepOutput(stepTools) : output;
      // The step's prompt around the page outline; the outline gets what the model's context window leaves.
      const message = (n: number, url: string, snapshot: string, shown: string[], screenshot?: { width: number; height: number }, downloaded: string[] = []) =>
        stepMessage({
          instruction: options.instruction,
          variables: promptVariables(vars),
          step: n,
          maxSteps: options.maxSteps,
          history,
          ...(detail ? { detail } : {}),
          ...(note ? { note } : {}),
          ...(shown.length ? { dialogs: shown } : {}),
          ...(downloaded.length ? { downloads: downloaded } : {}),
          ...(screenshot ? { screenshot } : {}),
          ...(offered.length ? { pageTools: pageToolLines(offered) } : {}),
          url,
          snapshot,
        });
      const budget = snapshotBudget(client.contextWindow, promptTokens([system, stepSchema.schema, message(step + 1, page.url(), "", dialogs, undefined, downloads)]) + LOOP_NOTE_TOKENS);
      const snap = await abortable(host.snapshots.take(page, budget !== undefined ? { maxTokens: budget } : {}), controller.signal);
      const state = pageState(page.url(), snap.text);
      // The previous step against this page: the same step on an unchanged page again is a loop.
      const found = loops && pending ? loops.observe(pending.tool, pending.args, pending.before, state) : undefined;
      pending = undefined;
      if (found) {
        emit({ type: "loop", step: found.stop ? step : step + 1, tool: found.tool, args: found.args, count: found.count, warning: found.warning, stopped: found.stop, message: found.stop ? `stopped: repeated ${found.what}` : `warned the model: it repeated ${found.what}` });
        if (found.stop) {
          loopFound = found;
          return void (stop = "loop");
        }
        note = note ? `${note}\n${loops!.note(found)}` : loops!.note(found);
      }
      step++;
      emit({ type: "step_start", step });
      const url = notePage();
      let image: { image: ModelImage; width: number; height: number } | undefined;
      if (config.mode === "hybrid") image = await abortable(stepScreenshot(page), controller.signal);
      const user = message(step, url, snap.text, dialogs.splice(0), image ? { width: image.width, height: image.height } : undefined, downloads.splice(0));
      note = undefined;
      const call = await infer(inference("agent", client, controller.signal), {
        system,
        user,
        ...(image ? { images: [image.image] } : {}),
        output: stepSchema,
        validate: (v) => parseStep(stepTools, v, snap.refs),
      });
      if (options.maxTokens !== undefined && used(totals) > options.maxTokens && call.tool.name !== "done") return void (stop = "maxTokens");
      await execute(page, snap.refs, call, false);
      if (call.tool.name !== "done") pending = { tool: call.tool.name, args: call.args, before: state };
    }
  };

  emit({ type: "run_start", instruction: options.instruction, mode: config.mode, maxSteps: options.maxSteps, model: client.modelName, url: host.page().url() });
  if (options.useSearch && !search) emit({ type: "log", level: "info", message: config.mode === "cua" ? "useSearch: cua mode has no search tool (use mode dom or hybrid)" : NO_SEARCH_BACKEND });
  // Dialogs answered during the run: each is an event now, and the next step is told of it.
  const dialogs: string[] = [];
  const offDialogs = host.dialogs?.onDialog((d) => {
    const line = describeDialog(d);
    dialogs.push(line);
    emit({ type: "log", level: "info", message: line });
  });
  // Downloads the same way: the model learns the file's name, size and path on the next step.
  const downloads: string[] = [];
  const offDownloads = host.downloads?.onDownload((d) => {
    const line = describeDownload(d);
    downloads.push(line);
    emit({ type: "log", level: "info", message: line });
  });
  let failure: unknown;
  try {
    await loop();
    if (final) stop = "done";
  } catch (e) {
    if (!controller.signal.aborted) {
      stop = "error";
      failure = e;
    }
  } finally {
    clearTimeout(deadline);
    offDialogs?.();
    offDownloads?.();
    options.signal?.removeEventListener("abort", onUserAbort);
  }
  const reason: AgentStopReason = stop ?? "aborted";
  const fromCache = actions.filter((a) => a.cached).length;
  const cacheStatus = runCache.status;
  const unwritten = runCache.store(reason, final);
  if (unwritten) {
    emit({ type: "log", level: "warn", message: unwritten });
    host.warn?.(unwritten);
  }
  // A replay that a budget or an abort stopped before the model answered: say there is no fresh answer.
  const notRecomputed = runCache.fullyReplayed && reason !== "done" ? ` (${fromCache} step(s) were replayed from the agent cache; the final answer was not recomputed)` : "";
  const result = checkResult({
    success: reason === "done" && Boolean(final?.success),
    message: reason === "done" ? final!.message : `${stopMessage(reason, options, totals, failure, loopFound?.what)}${notRecomputed}`,
    actions,
    completed: reason === "done",
    metadata: {
      mode: config.mode,
      model: client.modelName,
      steps: step,
      stopReason: reason,
      ...(loopFound ? { loop: { tool: loopFound.tool, args: loopFound.args, count: loopFound.count } } : {}),
      ...(final?.output !== undefined ? { output: final.output } : {}),
      ...(cacheStatus ? { cacheStatus, cacheKey: runCache.key } : {}),
      ...(failure ? { error: { code: (failure as { code?: string }).code ?? "ERROR", message: errorMessage(failure) } } : {}),
    },
    usage: totals,
  });
  emit({ type: "run_end", result });
  if (failure) throw failure;
  return result;
}
