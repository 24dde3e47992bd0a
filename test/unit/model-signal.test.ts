import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { withRequestSignal } from "../../src/model/signal.js";

describe("withRequestSignal", () => {
  it("leaves no listener on the caller's signal after many requests (the SDKs never remove theirs)", async () => {
    const run = new AbortController();
    for (let i = 0; i < 25; i++) {
      await withRequestSignal(run.signal, async (s) => {
        s!.addEventListener("abort", () => {}); // what the SDK does, without ever removing it
        return i;
      });
    }
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("aborting the caller's signal aborts the request's, and an aborted one starts aborted", async () => {
    const run = new AbortController();
    const seen = await withRequestSignal(run.signal, async (s) => {
      run.abort(new Error("stop"));
      return s!.aborted;
    });
    expect(seen).toBe(true);
    expect(await withRequestSignal(run.signal, async (s) => s!.aborted)).toBe(true);
    expect(await withRequestSignal(undefined, async (s) => s)).toBeUndefined();
  });
});
