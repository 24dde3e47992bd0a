/** The CLI's own errors, for outcomes the library reports as data rather than throws. */
import { ServiceError } from "../../src/base.js";

/** An Action the library ran but reported as failed (success: false): exit 1, message from the library. */
export class ActFailedError extends ServiceError {
  override readonly code = "ACT_FAILED";
}

/**
 * A run that ended without success (the agent, a batch): exit 11. `reported`: its result, which says how the run
 * ended, is already on stdout (the --json result line), so main.ts prints no second document.
 */
export abstract class IncompleteRunError extends ServiceError {
  constructor(
    message: string,
    readonly reported: boolean,
  ) {
    super(message);
  }
}
