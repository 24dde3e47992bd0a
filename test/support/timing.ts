/**
 * How much later than its own bound a test may see a deadline or an abort take effect on a loaded machine
 * (CI runs the suite with other work beside it). A test that checks something "stopped at once" or "ended at
 * its limit" bounds the time by the limit plus this slack, and makes the behaviour it rules out (waiting for a
 * slow reply, a long wait, the default 30 s deadline) take far longer than that bound.
 */
export const SLACK_MS = 8000;

/**
 * How long a test waits for something it expects to happen (waitFor's default): a bound on a hang, not a
 * measure. 5 s was too short on CI's loaded machine: an act whose first model call loads the model client
 * took longer than that to send its request.
 */
export const EVENT_WAIT_MS = 30_000;
