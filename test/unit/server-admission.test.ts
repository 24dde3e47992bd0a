/**
 * The admission queue's rules without a browser (the e2e test server-admission.test.ts runs them with real
 * Chromes): waiters get slots first come first served, a CPU reading above the limit holds starts back until a
 * sample under it, a release counts once, draining refuses the waiting starts.
 */
import { describe, expect, it } from "vitest";
import { Admission } from "../../src/server/platform/admission.js";
import type { LoadReading } from "../../src/server/platform/load.js";
import { errorResponse } from "../../src/server/http/errors.js";

/** The answer a client would get for what `p` rejects with (undefined when it resolves): the HTTP layer chooses statuses. */
const answerOf = (p: Promise<unknown>) => p.then(() => undefined, errorResponse);

function admission(limits: Partial<ConstructorParameters<typeof Admission>[0]> = {}, reading: LoadReading = { cpu: 10, memory: 1e8 }) {
  const load = { ...reading };
  const a = new Admission({ maxSessions: 1, maxQueued: 3, queueTimeoutMs: 60_000, ...limits }, () => load);
  return { a, load };
}

describe("Admission", () => {
  it("waiters get freed slots in the order they came; a release counts once", async () => {
    const { a } = admission();
    const first = await a.acquire();
    const order: string[] = [];
    const b = a.acquire().then((r) => (order.push("b"), r));
    const c = a.acquire().then((r) => (order.push("c"), r));
    expect(a.pressure()).toMatchObject({ running: 1, queued: 2, reason: "full", available: true });
    first();
    first();
    const rb = await b;
    expect(order).toEqual(["b"]);
    expect(a.pressure()).toMatchObject({ running: 1, queued: 1 });
    rb();
    (await c)();
    expect(order).toEqual(["b", "c"]);
    expect(a.pressure()).toMatchObject({ running: 0, queued: 0, reason: null });
  });

  it("above maxCpu a start waits; a sample under the limit (pump) admits it", async () => {
    const { a, load } = admission({ maxSessions: 4, maxCpu: 80 }, { cpu: 95, memory: 1e8 });
    let admitted = false;
    const waiting = a.acquire().then((r) => ((admitted = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(admitted).toBe(false);
    expect(a.pressure()).toMatchObject({ running: 0, queued: 1, reason: "cpu", cpu: 95, maxCpu: 80 });
    load.cpu = 40;
    a.pump();
    (await waiting)();
    expect(admitted).toBe(true);
  });

  it("a full queue refuses at once with 429 QUEUE_FULL; draining refuses the waiters with 503 DRAINING", async () => {
    const { a } = admission({ maxQueued: 1 });
    await a.acquire();
    const waiting = a.acquire();
    await expect(answerOf(a.acquire())).resolves.toMatchObject({ status: 429, code: "QUEUE_FULL", headers: { "retry-after": "5" } });
    expect(a.pressure()).toMatchObject({ available: false, reason: "full" });
    a.drain();
    await expect(answerOf(waiting)).resolves.toMatchObject({ status: 503, code: "DRAINING" });
    await expect(answerOf(a.acquire())).resolves.toMatchObject({ status: 503, code: "DRAINING" });
    expect(a.pressure()).toMatchObject({ queued: 0, draining: true, available: false, reason: "draining" });
  });
});
