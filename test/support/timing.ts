/**
 * How much later than its own bound a test may see a deadline or abort take effect on a loaded machine. A test of
 * "stopped at once" bounds the time by the limit plus this slack, and makes what it rules out (a slow reply, the 30 s
 * default deadline) take far longer than that bound.
 */
export const SLACK_MS = 8000;

/**
 * How long a test waits for something it expects to happen (waitFor's default): a bound on a hang, not a
 * measure. 5 s was too short on CI's loaded machine: an act whose first model call loads the model client
 * took longer than that to send its request.
 */
export const EVENT_WAIT_MS = 30_000;
