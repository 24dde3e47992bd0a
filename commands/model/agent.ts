/**
 * `svc agent "instruction"` (docs/agent.md): the library's agent, as a live Ink view at a terminal (commands/ui/,
 * loaded only here) or JSON lines otherwise. The result is printed as the library returned it, never rewritten.
 * Ctrl-C aborts the run through its signal and finishes the outputs before the one-shot browser closes; a run without
 * success is AgentIncompleteError.
 */
import { resolve } from "node:path";
import type { AgentResultData, RunEvent } from "../../src/index.js";
import { ServiceError, ServiceInvalidArgumentError, isCloud } from "../../src/base.js";
import type { Variables } from "../../src/internal.js";
import { registerCleanup } from "../core/cleanup.js";
import { readVariables, resolveCliModel, withKey } from "../core/model.js";
import { type GlobalOptions, SCHEMA_VERSION } from "../core/output.js";
import { createRecorder } from "./record.js";
import { type LaunchFlags, type RunContext, type RunTarget, checkUrl, stateRoot, withLiveOrOneShot } from "../core/runtime.js";
import { positiveInt } from "../core/numbers.js";
import { openSettings } from "../core/settings.js";
import type { AgentScreen } from "../ui/start.js";

export interface AgentFlags extends LaunchFlags {
  /** A browser of its own for this command, even when a session is live. */
  new?: boolean;
  url?: string;
  mode?: string;
  model?: string;
  executionModel?: string;
  maxSteps?: string;
  maxTokens?: string;
  timeout?: string;
  toolTimeout?: string;
  var?: string[];
  varFile?: string;
  cacheDir?: string;
  search?: boolean;
  record?: string;
  loopRepeats?: string;
  loopWarnings?: string;
  /** false: --no-loop-detection. */
  loopDetection?: boolean;
  askHuman?: boolean;
  askHumanTimeout?: string;
}

/** The run ended without success: completed false (a budget) or `done` with success false. */
class AgentIncompleteError extends ServiceError {
  override readonly code = "AGENT_INCOMPLETE";
  constructor(
    message: string,
    /** Already reported on stdout (the --json result line): main.ts prints no second document. */
    readonly reported: boolean,
  ) {
    super(message);
  }
}

const MODES = ["dom", "hybrid", "cua"] as const;

/** Screenshots (hybrid mode keeps one per action) stay out of what is printed. */
function withoutImages(result: AgentResultData): AgentResultData {
  return { ...result, actions: result.actions.map(({ image: _image, ...a }) => a) };
}

function printable(event: RunEvent): RunEvent {
  return event.type === "run_end" ? { ...event, result: withoutImages(event.result) } : event;
}

/** --loop-repeats / --loop-warnings / --no-loop-detection → the loopDetection option (undefined: the default). */
function loopFlags(flags: AgentFlags): { repeats?: number; maxWarnings?: number } | false | undefined {
  if (flags.loopDetection === false) {
    if (flags.loopRepeats !== undefined || flags.loopWarnings !== undefined) throw new ServiceInvalidArgumentError("--no-loop-detection cannot be combined with --loop-repeats or --loop-warnings");
    return false;
  }
  const repeats = positiveInt(flags.loopRepeats, "--loop-repeats");
  if (repeats !== undefined && repeats < 2) throw new ServiceInvalidArgumentError(`--loop-repeats must be at least 2, got "${flags.loopRepeats}"`);
  let maxWarnings: number | undefined;
  if (flags.loopWarnings !== undefined) {
    maxWarnings = Number(flags.loopWarnings);
    if (!flags.loopWarnings.trim() || !Number.isInteger(maxWarnings) || maxWarnings < 0) throw new ServiceInvalidArgumentError(`--loop-warnings must be a whole number (0 or more), got "${flags.loopWarnings}"`);
  }
  if (repeats === undefined && maxWarnings === undefined) return undefined;
  return { ...(repeats !== undefined ? { repeats } : {}), ...(maxWarnings !== undefined ? { maxWarnings } : {}) };
}

export async function agent(g: GlobalOptions, instruction: string, flags: AgentFlags): Promise<void> {
  // Everything is validated before a browser is touched.
  if (!instruction?.trim()) throw new ServiceInvalidArgumentError("agent needs an instruction", { hint: 'svc agent "find the cheapest flight to Oslo" --url https://…' });
  const maxSteps = positiveInt(flags.maxSteps, "--max-steps");
  const maxTokens = positiveInt(flags.maxTokens, "--max-tokens");
  const timeoutMs = positiveInt(flags.timeout, "--timeout", " (milliseconds)");
  const toolTimeout = positiveInt(flags.toolTimeout, "--tool-timeout", " (milliseconds)");
  const loopDetection = loopFlags(flags);
  const askSeconds = positiveInt(flags.askHumanTimeout, "--ask-human-timeout", " (seconds)");
  if (askSeconds !== undefined && !flags.askHuman) throw new ServiceInvalidArgumentError("--ask-human-timeout goes with --ask-human");
  if (askSeconds !== undefined && askSeconds > 3600) throw new ServiceInvalidArgumentError(`--ask-human-timeout must be at most 3600 (seconds), got ${askSeconds}`);
  if (flags.mode !== undefined && !(MODES as readonly string[]).includes(flags.mode)) throw new ServiceInvalidArgumentError(`--mode must be one of ${MODES.join(", ")}, got "${flags.mode}"`);
  const url = flags.url !== undefined ? checkUrl(flags.url) : undefined;
  for (const pair of flags.var ?? []) {
    if (pair.indexOf("=") <= 0) throw new ServiceInvalidArgumentError(`--var expects name=value, got "${pair.slice(0, 40)}"`);
  }
  const variables = (await readVariables(flags.var, flags.varFile)) as Variables;
  const model = await withKey(g, await resolveCliModel({ ...(flags.model !== undefined ? { model: flags.model } : {}) }), "--model");
  const executionModel = flags.executionModel !== undefined ? await withKey(g, await resolveCliModel({ model: flags.executionModel }), "--execution-model") : undefined;
  let screenshot: (() => Promise<Buffer>) | undefined;
  const recorder = flags.record !== undefined ? createRecorder(flags.record, () => (screenshot ? screenshot() : Promise.reject(new Error("no page")))) : undefined;
  const live = !g.json && !!process.stdout.isTTY;
  let view: AgentScreen | undefined;
  // The live view shows the question itself; otherwise it goes to stderr.
  const asker = flags.askHuman ? (await import("../core/ask-human.js")).terminalAsker({ quiet: live, say: (line) => view?.note(line) }) : undefined;

  const run = async ({ svc, session }: RunContext) => {
    screenshot = () => svc.page.screenshot();
    // A local session's live view (`svc view`): its URL at the top of the terminal view, when its host serves one;
    // with --ask-human, the question is asked there too.
    if (session && !isCloud(session)) {
      const { hostViewAsker, liveViewUrl } = await import("../sessions/view.js");
      const root = stateRoot();
      asker?.useView(hostViewAsker(root, session.id));
      const viewUrl = view ? await liveViewUrl(root, session.id, false).catch(() => undefined) : undefined;
      if (viewUrl) view?.note(`live view: ${viewUrl}`);
    }
    const agentRunner = svc.agent({ model, ...(executionModel ? { executionModel } : {}), ...(flags.mode ? { mode: flags.mode as (typeof MODES)[number] } : {}) });
    const line = (doc: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ...doc })}\n`);
    agentRunner.subscribe((event) => {
      recorder?.onEvent(event);
      if (view) view.onEvent(event);
      else line(printable(event) as unknown as Record<string, unknown>);
    });
    const controller = new AbortController();
    const work = (async () => {
      let result: AgentResultData | undefined;
      let error: unknown;
      try {
        if (url !== undefined) await svc.page.goto(url);
        result = await agentRunner.execute({
          instruction,
          variables,
          signal: controller.signal,
          ...(maxSteps !== undefined ? { maxSteps } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(toolTimeout !== undefined ? { toolTimeout } : {}),
          ...(flags.search ? { useSearch: true } : {}),
          ...(loopDetection !== undefined ? { loopDetection } : {}),
          ...(asker ? { askHuman: asker.ask, ...(askSeconds !== undefined ? { askHumanTimeoutMs: askSeconds * 1000 } : {}) } : {}),
          // Each step's screenshot is taken before the next step starts (the run awaits it).
          ...(recorder ? { onStepEnd: (step: { step: number }) => recorder.stepEnd(step) } : {}),
        });
      } catch (e) {
        error = e;
      } finally {
        asker?.close();
      }
      await view?.close();
      let report: string | undefined;
      if (recorder) {
        try {
          report = await recorder.finish();
        } catch (e) {
          process.stderr.write(`svc: the --record report was not written: ${(e as Error).message}\n`);
        }
      }
      // Printed as returned (results are never rewritten); the events above come masked from the library.
      const printed = result ? withoutImages(result) : undefined;
      if (printed && !view) line({ type: "result", ...(session ? { session: session.id } : {}), ...(report ? { report } : {}), result: printed });
      if (view && report) process.stdout.write(`report: ${report}\n`);
      return { result: printed, error };
    })();
    // On Ctrl-C (main.ts runs cleanups, latest first): stop the run and let it finish its outputs before
    // the browser is closed by the runtime's cleanup.
    const unregister = registerCleanup(async () => {
      controller.abort();
      // Bounded: main.ts gives all cleanups 5 s, and the browser's own cleanup must still get its turn.
      await Promise.race([work, new Promise((r) => setTimeout(r, 3000).unref())]);
    });
    const outcome = await work;
    unregister();
    if (outcome.error !== undefined) throw outcome.error;
    const r = outcome.result!;
    if (!r.success) {
      const what = r.completed ? "agent finished without success" : "agent did not complete";
      throw new AgentIncompleteError(`${what}: ${r.message}`, !live && g.json);
    }
  };
  // The search backend of a local run: config search.url (or SVC_SEARCH_URL); a cloud run searches on its server.
  const searchUrl = flags.search ? ((await openSettings()).effective("search.url", {}).value as string | undefined) : undefined;
  const extras = { ...(flags.cacheDir !== undefined ? { cacheDir: resolve(flags.cacheDir) } : {}), ...(searchUrl ? { searchUrl } : {}) };
  // The live view is up before the browser: its first line at once, then what the wait is for.
  view = live ? (await import("../ui/start.js")).startAgentScreen() : undefined;
  // Closed last on Ctrl-C (cleanups run latest first): after the run's outputs and the browser's close.
  const unregisterView = view ? registerCleanup(() => view!.close()) : undefined;
  const announce = (target: RunTarget) => view?.status(target.session !== undefined ? `attaching to session ${target.session}…` : target.cloud ? "starting a cloud browser…" : "starting Chrome…");
  try {
    await withLiveOrOneShot(g, flags, run, extras, announce);
  } finally {
    await view?.close();
    unregisterView?.();
  }
}
