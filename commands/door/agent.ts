/**
 * The CLI's part in an agent run (src/capabilities/agent.ts, CliDoor.live): a live Ink view at a terminal (ui/,
 * loaded only here) or JSON lines, one per event, then the result as returned; `--record`; `--ask-human`. Ctrl-C
 * stops the run (the command's signal) and lets it finish its outputs before a one-shot browser closes.
 */
import { resolve } from "node:path";
import type { AgentWatch, Outcome } from "../../src/capabilities/index.js";
import { isCloud, type StoredSession } from "../../src/base.js";
import type { AgentResultData, Page, RunEvent } from "../../src/index.js";
import { registerCleanup } from "../core/cleanup.js";
import { IncompleteRunError } from "../core/errors.js";
import { type GlobalOptions, SCHEMA_VERSION } from "../core/output.js";
import { type RunTarget, stateRoot } from "../core/runtime.js";
import { openSettings } from "../core/settings.js";
import { createRecorder, type Recorder } from "../model/record.js";
import type { AgentScreen } from "../ui/start.js";

/** The run ended without success: completed false (a budget) or `done` with success false. */
class AgentIncompleteError extends IncompleteRunError {
  override readonly code = "AGENT_INCOMPLETE";
}

/** How long Ctrl-C lets the run finish its outputs: main.ts gives all cleanups 5 s, and the browser's close must still get its turn. */
const FINISH_ON_INTERRUPT_MS = 3000;

/** The CLI's watch of one agent command: made before any browser, attached to the page once there is one. */
export interface CliAgentWatch {
  /** What the command waits for before the first step (the view's first lines). */
  announce(target: RunTarget): void;
  /** The handler's AgentWatch on the command's page. */
  attach(page: Page, session: StoredSession | undefined): Promise<AgentWatch>;
  /** The result line (or, with the view, the report's path); exit 11 for a run without success. */
  print(outcome: Outcome, session: StoredSession | undefined): void;
  /** The view closed and the terminal given back. */
  close(): Promise<void>;
  /** The Service options the run needs: the agent cache (--cache-dir) and a local run's search backend (config search.url or SVC_SEARCH_URL). */
  extras: { cacheDir?: string; searchUrl?: string };
}

interface WatchInput {
  record?: string | undefined;
  askHuman?: boolean | undefined;
  askHumanTimeout?: number | undefined;
  search?: boolean | undefined;
  cacheDir?: string | undefined;
}

/** Printed events keep no screenshot (hybrid mode keeps one per action). */
function printable(event: RunEvent): RunEvent {
  return event.type === "run_end" ? { ...event, result: { ...event.result, actions: event.result.actions.map(({ image: _image, ...a }) => a) } } : event;
}

const line = (doc: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ...doc })}\n`);

/** Before any browser: the view up (its first line at once), the --record directory made, the person to ask ready. */
export async function startAgentWatch(g: GlobalOptions, input: WatchInput): Promise<CliAgentWatch> {
  const searchUrl = input.search ? ((await openSettings()).effective("search.url", {}).value as string | undefined) : undefined;
  const extras = { ...(input.cacheDir !== undefined ? { cacheDir: resolve(input.cacheDir) } : {}), ...(searchUrl ? { searchUrl } : {}) };
  let screenshot: (() => Promise<Buffer>) | undefined;
  const recorder: Recorder | undefined = input.record !== undefined ? createRecorder(input.record, () => (screenshot ? screenshot() : Promise.reject(new Error("no page")))) : undefined;
  const live = !g.json && !!process.stdout.isTTY;
  let view: AgentScreen | undefined;
  // The live view shows the question itself; otherwise it goes to stderr.
  const asker = input.askHuman ? (await import("../core/ask-human.js")).terminalAsker({ quiet: live, say: (l) => view?.note(l) }) : undefined;
  view = live ? (await import("../ui/start.js")).startAgentScreen() : undefined;
  // Closed last on Ctrl-C (cleanups run latest first): after the run's outputs and the browser's close.
  const unregisterView = view ? registerCleanup(() => view!.close()) : undefined;
  let printed: () => void = () => {};
  let unregisterRun: (() => void) | undefined;
  return {
    extras,
    announce: (target) => view?.status(target.session !== undefined ? `attaching to session ${target.session}…` : target.cloud ? "starting a cloud browser…" : "starting Chrome…"),
    attach: async (page, session) => {
      screenshot = () => page.screenshot();
      // A local session's live view (`svc view`): its URL at the top of the terminal view, when its host serves one;
      // with --ask-human, the question is asked there too.
      if (session && !isCloud(session)) {
        const { hostViewAsker, liveViewUrl } = await import("../sessions/view.js");
        const root = stateRoot();
        asker?.useView(hostViewAsker(root, session.id));
        const viewUrl = view ? await liveViewUrl(root, session.id, false).catch(() => undefined) : undefined;
        if (viewUrl) view?.note(`live view: ${viewUrl}`);
      }
      // On Ctrl-C (the command's signal stops the run): its outputs are finished before the browser is closed.
      const done = new Promise<void>((r) => (printed = r));
      unregisterRun = registerCleanup(() => Promise.race([done, new Promise((r) => setTimeout(r, FINISH_ON_INTERRUPT_MS).unref())]));
      return {
        onEvent: (event) => {
          recorder?.onEvent(event);
          if (view) view.onEvent(event);
          else line(printable(event) as unknown as Record<string, unknown>);
        },
        options: {
          ...(asker ? { askHuman: asker.ask, ...(input.askHumanTimeout !== undefined ? { askHumanTimeoutMs: input.askHumanTimeout * 1000 } : {}) } : {}),
          // Each step's screenshot is taken before the next step starts (the run awaits it).
          ...(recorder ? { onStepEnd: (step: { step: number }) => recorder.stepEnd(step) } : {}),
        },
        finish: async () => {
          asker?.close();
          await view?.close();
          if (!recorder) return {};
          try {
            return { report: await recorder.finish() };
          } catch (e) {
            process.stderr.write(`svc: the --record report was not written: ${(e as Error).message}\n`);
            return {};
          }
        },
      };
    },
    print: (outcome, session) => {
      try {
        const data = outcome.kind === "report" ? outcome.data : {};
        const { report, result } = data as { report?: string; result: AgentResultData };
        // Printed as returned (results are never rewritten); the events above came masked from the library.
        if (!view) line({ type: "result", ...(session ? { session: session.id } : {}), ...(report ? { report } : {}), result });
        if (view && report) process.stdout.write(`report: ${report}\n`);
        if (!result.success) throw new AgentIncompleteError(`${result.completed ? "agent finished without success" : "agent did not complete"}: ${result.message}`, !live && g.json);
      } finally {
        printed();
        unregisterRun?.();
      }
    },
    close: async () => {
      printed();
      unregisterRun?.();
      await view?.close();
      unregisterView?.();
    },
  };
}

