/** The CLI's own errors, for outcomes the library reports as data rather than throws. */
import { ServiceError } from "../../src/base.js";

/** An Action the library ran but reported as failed (success: false): exit 1, message from the library. */
export class ActFailedError extends ServiceError {
  override readonly code = "ACT_FAILED";
}
