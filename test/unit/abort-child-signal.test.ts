import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { withChildSignal } from "../../src/util/abort.js";

describe("withChildSignal", () => {
  it("leaves no listener on the caller's signal after many requests (the SDKs never remove theirs)", async () => {
    const run = new AbortController();
    for (let i = 0; i < 25; i++) {
      await withChildSignal(run.signal, async (s) => {
        s!.addEventListener("abort", () => {}); // what the SDK does, without ever removing it
        return i;
      });
    }
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("aborting the caller's signal aborts the request's, and an aborted one starts aborted", async () => {
    const run = new AbortController();
    const seen = await withChildSignal(run.signal, async (s) => {
      run.abort(new Error("stop"));
      return s!.aborted;
    });
    expect(seen).toBe(true);
    expect(await withChildSignal(run.signal, async (s) => s!.aborted)).toBe(true);
    expect(await withChildSignal(undefined, async (s) => s)).toBeUndefined();
  });
});
