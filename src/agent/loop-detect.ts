/**
 * Loop detection: an agent repeating one action on a page that does not change is stuck (a dead button, a field
 * rejecting input, a model that forgot). After `repeats` identical steps with the page unchanged (same URL and outline),
 * each further one's prompt warns; after `maxWarnings` warnings the run stops, `completed: false`. Options:
 * docs/models.md#loop-detection.
 */
import { createHash } from "node:crypto";
import { compactArgs } from "./prompt.js";

export interface LoopDetectionOptions {
  /** Identical steps on an unchanged page before the model is warned (default 3). */
  repeats: number;
  /** Warnings before the run stops (default 2): the stop comes at step `repeats + maxWarnings`. */
  maxWarnings: number;
}

/** Room kept in a step's prompt for a loop warning (its outline is budgeted before the warning is known). */
export const LOOP_NOTE_TOKENS = 120;

export const DEFAULT_LOOP_DETECTION: LoopDetectionOptions = { repeats: 3, maxWarnings: 2 };

/** What the detector found after a step: a warning for the next prompt, or the reason to stop. */
export interface LoopFinding {
  tool: string;
  args: unknown;
  /** How many identical steps in a row, the page unchanged. */
  count: number;
  /** 1-based; `stop` when it exceeds maxWarnings. */
  warning: number;
  stop: boolean;
  /** The loop in words: `perform {"ref":"e5","method":"click"} 3 times in a row with no change to the page`. */
  what: string;
}

/** The page as the loop check sees it: its URL and a digest of its outline (refs included). */
export function pageState(url: string, outline: string): string {
  return `${url}\n${createHash("sha256").update(outline).digest("hex")}`;
}

export class LoopDetector {
  private last: { signature: string; before: string } | undefined;
  private count = 0;
  private warnings = 0;

  constructor(private readonly options: LoopDetectionOptions) {}

  /**
   * Called with each step the model chose (not `done`, not replayed ones) once the page after it is known
   * (`after`: the next step's page; `before`: the page the step was chosen on). An action that changed the
   * page, or a different action, starts the count again.
   */
  observe(tool: string, args: unknown, before: string, after: string): LoopFinding | undefined {
    const signature = `${tool} ${compactArgs(args)}`;
    const unchanged = before === after;
    if (!unchanged) this.count = 0;
    else if (this.last?.signature === signature && this.last.before === before) this.count++;
    else this.count = 1;
    this.last = { signature, before };
    if (this.count < this.options.repeats) return undefined;
    this.warnings++;
    const stop = this.warnings > this.options.maxWarnings;
    return { tool, args, count: this.count, warning: this.warnings, stop, what: `${signature} ${this.count} times in a row with no change to the page` };
  }

  /** The note the next step's prompt carries after a warning. */
  note(f: LoopFinding): string {
    return loopNote(f, this.options.maxWarnings);
  }
}

/** The note the next step's prompt carries after a warning. */
function loopNote(f: LoopFinding, maxWarnings: number): string {
  const left = maxWarnings - f.warning;
  return (
    `Warning: you repeated ${f.what} (same URL, same outline). It is not working. Do something different: ` +
    `another element or method, scroll, wait, go back, or call done with success false and say what blocks you. ` +
    (left > 0 ? `The run stops if the loop goes on (${left} more warning${left === 1 ? "" : "s"}).` : "The run stops at the next repeat.")
  );
}
