import { describe, expect, it } from "vitest";
import { ServiceAbortedError, ServiceTimeoutError } from "../../src/errors.js";
import { Cancellation, within } from "../../src/util/abort.js";

const never = () => new Promise<never>(() => {});

describe("within: one promise raced against its own timeout and the caller's signal", () => {
  it("settles like the work when it ends first", async () => {
    await expect(within(Promise.resolve(7), 1000, () => new ServiceTimeoutError("late"))).resolves.toBe(7);
    await expect(within(Promise.reject(new Error("boom")), 1000, () => new ServiceTimeoutError("late"))).rejects.toThrow("boom");
  });

  it("rejects with the call's own timeout error once the time passed", async () => {
    const e = await within(never(), 20, () => new ServiceTimeoutError("attaching took too long", { hint: "h" })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceTimeoutError);
    expect((e as ServiceTimeoutError).message).toBe("attaching took too long (hint: h)");
    expect((e as ServiceTimeoutError).code).toBe("TIMEOUT");
  });

  it("rejects with the abort's error when the caller's signal aborts first, and at once when it already did", async () => {
    const caller = new AbortController();
    const racing = within(never(), 60_000, () => new ServiceTimeoutError("late"), caller.signal);
    caller.abort(new ServiceAbortedError("client left"));
    await expect(racing).rejects.toThrow("client left");
    await expect(within(never(), 60_000, () => new ServiceTimeoutError("late"), caller.signal)).rejects.toBeInstanceOf(ServiceAbortedError);
  });
});

describe("Cancellation: a call's own timeout message, and whether the deadline or the caller stopped it", () => {
  it("aborts with timeoutError() and says timedOut", async () => {
    const call = new Cancellation({ timeout: 10, timeoutError: () => new ServiceTimeoutError("fetching x did not finish within 10 ms") });
    await new Promise((r) => call.signal.addEventListener("abort", r, { once: true }));
    expect(call.timedOut).toBe(true);
    expect((call.signal.reason as Error).message).toBe("fetching x did not finish within 10 ms");
    call.dispose();
  });

  it("a caller's abort is not a timeout", () => {
    const caller = new AbortController();
    const call = new Cancellation({ signal: caller.signal, timeout: 60_000 });
    caller.abort();
    expect(call.aborted).toBe(true);
    expect(call.timedOut).toBe(false);
    expect(call.signal.reason).toBeInstanceOf(ServiceAbortedError);
    call.dispose();
  });
});
