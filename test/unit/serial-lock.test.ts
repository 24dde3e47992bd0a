/**
 * SerialLock (src/util/serial.ts): one operation at a time, in order; a waiter whose signal aborts leaves the
 * line; work whose signal aborted but never settles (a call a hung page never answers) gives up its turn
 * after ABANDON_MS instead of holding every later operation.
 */
import { describe, expect, it } from "vitest";
import { SerialLock } from "../../src/util/serial.js";

const never = () => new Promise<never>(() => {});

describe("SerialLock", () => {
  it("runs work in order, one at a time, and re-entrantly inside held work", async () => {
    const lock = new SerialLock();
    const seen: string[] = [];
    let open!: () => void;
    const first = lock.run(async () => {
      seen.push("first start");
      await new Promise<void>((r) => (open = r));
      await lock.run(async () => void seen.push("inner"));
      seen.push("first end");
    });
    const second = lock.run(async () => void seen.push("second"));
    await Promise.resolve();
    expect(seen).toEqual(["first start"]);
    open();
    await Promise.all([first, second]);
    expect(seen).toEqual(["first start", "inner", "first end", "second"]);
  });

  it("a waiter whose signal aborts leaves the line; the one behind it still waits for the work before", async () => {
    const lock = new SerialLock();
    let open!: () => void;
    const first = lock.run(() => new Promise<void>((r) => (open = r)));
    const ac = new AbortController();
    const second = lock.run(async () => "second ran", ac.signal);
    let thirdRan = false;
    const third = lock.run(async () => void (thirdRan = true));
    ac.abort(new Error("stop"));
    await expect(second).rejects.toThrow("stop");
    expect(thirdRan).toBe(false);
    open();
    await Promise.all([first, third]);
    expect(thirdRan).toBe(true);
  });

  it("work whose signal aborted and never settles gives up its turn; the next runs while it is still pending", async () => {
    const lock = new SerialLock();
    const ac = new AbortController();
    let stuckSettled = false;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    void lock
      .run(() => {
        started();
        return never();
      }, ac.signal)
      .finally(() => (stuckSettled = true));
    const next = lock.run(async () => "next ran");
    await running;
    ac.abort(new Error("timed out"));
    expect(await next).toBe("next ran");
    expect(stuckSettled).toBe(false);
  });

  it("work that throws before returning a promise gives the turn back", async () => {
    const lock = new SerialLock();
    await expect(
      lock.run(() => {
        throw new Error("bad option");
      }),
    ).rejects.toThrow("bad option");
    expect(await lock.run(async () => "next ran")).toBe("next ran");
  });
});
