/**
 * An agent run's side of the agent cache (cache.ts holds the entries): replaying a stored entry's steps before
 * the model takes over, keeping what this run did that a later run could replay, and storing the entry at the
 * end. run.ts owns the steps and the answer; this owns the cache's bookkeeping.
 */
import type { Page } from "../browser/page.js";
import { errorMessage } from "../errors.js";
import type { AgentStopReason } from "../events.js";
import type { AgentCacheSession } from "./cache.js";
import { pageFingerprint } from "./fingerprint.js";
import type { AgentTool, ParsedStep, ReplayStep, ToolOutcome } from "./tools.js";

export interface FinalAnswer {
  message: string;
  success: boolean;
  output?: unknown;
}

/** What a replay asks of the run it is part of. */
export interface ReplayHooks {
  tools: AgentTool[];
  /** Steps taken so far. */
  steps(): number;
  /** Starts the next step (step_start); false when the step budget is spent. */
  nextStep(): boolean;
  /** Runs a step as the run runs its own (events, history, the step's hook), marked as cached. */
  execute(call: ParsedStep): Promise<ToolOutcome>;
  page(): Page;
  log(message: string): void;
}

/** How a replay left the run: a note for the model's next step, or the stored answer when it was returned. */
export interface ReplayEnd {
  note?: string;
  final?: FinalAnswer;
}

export class RunCache {
  /** Steps this run did that a later run can redo without the model. */
  private readonly replayed: ReplayStep[] = [];
  /** False once a step succeeded that cannot be replayed. */
  private cacheable = true;
  /** How far the entry was replayed: "full" = every stored step, then the model took over. */
  private replayState: "none" | "partial" | "full" = "none";
  /** Steps the model chose other than `done` (after a full replay: the entry no longer told the whole path). */
  private modelSteps = 0;
  /** The fingerprint of the page the model's `done` was read from. */
  private finalFingerprint: string | undefined;
  /** Whether the run's answer is the stored one. */
  private answeredFromCache = false;

  constructor(private readonly session: AgentCacheSession | undefined) {}

  /** Notes a step's outcome: what can be replayed, whether the run still can be, the page an answer was read from. */
  async record(tool: string, outcome: ToolOutcome, cached: boolean, page: () => Page): Promise<void> {
    if (outcome.ok && outcome.replay) this.replayed.push(...outcome.replay);
    else if (outcome.ok) this.cacheable = false;
    if (!cached && tool !== "done") this.modelSteps++;
    if (outcome.done && !cached) this.finalFingerprint = await pageFingerprint(page());
  }

  /**
   * Replays the entry's steps with no model, never its `done` (its answer was about another run's page). Either
   * way the model takes over afterwards: at the first step that no longer fits, or after the last one, to read
   * the page as it is now and give the final answer (usually one call) — unless the page is the one the stored
   * answer was read from, which is then returned as a step of its own.
   */
  async replay(hooks: ReplayHooks): Promise<ReplayEnd> {
    const entry = this.session?.entry;
    if (!entry) return {};
    for (const s of entry.steps) {
      const tool = s.tool === "done" ? undefined : hooks.tools.find((t) => t.name === s.tool);
      const parsed = tool?.input.safeParse(s.args);
      if (!tool || !parsed?.success || !hooks.nextStep()) {
        if (hooks.steps() > 0) this.replayState = "partial";
        return {};
      }
      const outcome = await hooks.execute({ tool, args: parsed.data, reasoning: "replayed from the agent cache" });
      if (!outcome.ok) {
        this.replayState = "partial";
        const step = hooks.steps();
        hooks.log(`cache replay stopped at step ${step} (${outcome.summary}); the model takes over`);
        return { note: `Note: steps 1–${step} were replayed from a cache; step ${step} failed, so look at the page and continue from here.` };
      }
    }
    this.replayState = "full";
    const step = hooks.steps();
    if (step === 0) return {}; // an entry with nothing to redo: the model starts as on a miss
    const stored = entry.answer;
    if (stored?.success && typeof stored.message === "string" && stored.fingerprint === (await pageFingerprint(hooks.page()))) {
      const answer: FinalAnswer = { message: stored.message, success: true, ...(stored.output !== undefined ? { output: stored.output } : {}) };
      this.answeredFromCache = true;
      hooks.log(`replayed ${step} cached step(s); the page matches the one the stored answer was read from, so it is returned with no model call`);
      const done = hooks.tools.find((t) => t.name === "done");
      const args = done?.input.safeParse(answer);
      if (done && args?.success && hooks.nextStep()) {
        await hooks.execute({ tool: done, args: args.data, reasoning: "the stored answer: the page matches the one it was read from" });
        return {};
      }
      return { final: answer };
    }
    hooks.log(`replayed ${step} cached step(s); the model reads the page for the final answer`);
    return {
      note: `Note: steps 1–${step} were replayed from a cache of an earlier run of this task. Look at the page as it is now: continue if something is left, and give the final answer from what this page shows.`,
    };
  }

  /** HIT: every stored step replayed (the answer is the stored one only when the page matched its fingerprint). */
  get status(): "HIT" | "PARTIAL" | "MISS" | undefined {
    if (!this.session) return undefined;
    return this.replayState === "full" ? "HIT" : this.replayState === "partial" ? "PARTIAL" : "MISS";
  }

  get key(): string | undefined {
    return this.session?.key;
  }

  /** Every stored step was redone (the model may have gone on after them). */
  get fullyReplayed(): boolean {
    return this.replayState === "full";
  }

  /**
   * Stores what a successful run did. A HIT answered from the cache leaves the entry as it was; one the model
   * answered stores its new answer. Returns a warning when the entry could not be written (the run goes on).
   */
  store(reason: AgentStopReason, final: FinalAnswer | undefined): string | undefined {
    if (!this.session || !(this.status !== "HIT" || this.modelSteps > 0 || !this.answeredFromCache) || reason !== "done" || !final?.success || !this.cacheable) return undefined;
    const answer = !this.answeredFromCache && this.finalFingerprint ? { message: final.message, success: true, ...(final.output !== undefined ? { output: final.output } : {}), fingerprint: this.finalFingerprint } : undefined;
    try {
      this.session.save(this.replayed, answer);
      return undefined;
    } catch (e) {
      return `the agent cache was not written: ${errorMessage(e)}`;
    }
  }
}
