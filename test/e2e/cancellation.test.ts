/**
 * One cancellation path through every operation: a timeout or the caller's AbortSignal stops the work in the page
 * (typing stops between keys, the model request is closed), the promise rejects with TIMEOUT / ABORTED, and history
 * records it as stopped. The field is read again well after the rejection: nothing types on behind the caller's back.
 */
import { describe, expect, it } from "vitest";
import { ServiceAbortedError, ServiceTimeoutError } from "../../src/errors.js";
import type { HistoryEntry } from "../../src/records.js";
import { action, waitFor } from "../support/browser.js";
import { inPage, useModelService, useModelWorld, WIRES } from "../support/models.js";
import { lineOf, step } from "./agent-support.js";
import { rejection } from "../support/rejection.js";
import { SLACK_MS } from "../support/timing.js";

const world = useModelWorld();
const wire = WIRES[0]!;
const env = useModelService(() => ({ model: wire.model(world.fake) }));
const TEXT = "x".repeat(200);

/** forms.html with a #bio whose every keydown takes ~25 ms: 200 characters take ≥ 5 s. */
async function openSlowField(): Promise<void> {
  await env.svc.page.goto(world.server.url("forms.html"));
  await inPage(env.svc.page, `document.getElementById("bio").addEventListener("keydown", () => { const t = performance.now(); while (performance.now() - t < 25) {} })`);
}
const typed = () => inPage<number>(env.svc.page, `document.getElementById("bio").value.length`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** After the rejection, the field holds what it held then, a second later too. */
async function expectStopped(): Promise<number> {
  const atRejection = await typed();
  await pause(1200);
  expect(await typed()).toBe(atRejection);
  expect(atRejection).toBeLessThan(TEXT.length);
  return atRejection;
}

const last = async (): Promise<HistoryEntry> => (await env.svc.history).at(-1)!;

describe("act(action) type", () => {
  it("a timeout stops the typing between keys: TIMEOUT, fewer characters than asked, and a history entry saying so", async () => {
    await openSlowField();
    const e = await rejection(env.svc.act(action("type", "#bio", [TEXT]), { timeout: 800 }));
    expect(e).toBeInstanceOf(ServiceTimeoutError);
    expect(e.message).toMatch(/^act did not finish within 800 ms \(typed (\d+) of 200 characters\)$/);
    const n = await expectStopped();
    expect(e.message).toContain(`typed ${n} of 200`);
    expect(await last()).toMatchObject({ method: "act", parameters: { action: { method: "type", selector: "#bio" } }, result: { success: false, stopped: "timeout", error: { code: "TIMEOUT", message: e.message } } });
  });

  it("an AbortSignal stops it the same way: ABORTED, recorded as aborted", async () => {
    await openSlowField();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 600);
    const e = await rejection(env.svc.act(action("type", "#bio", [TEXT]), { signal: controller.signal }));
    expect(e).toBeInstanceOf(ServiceAbortedError);
    expect(e.message).toMatch(/typed \d+ of 200 characters/);
    await expectStopped();
    expect(await last()).toMatchObject({ method: "act", result: { success: false, stopped: "aborted", error: { code: "ABORTED" } } });
  });

  it("an already aborted signal: nothing is typed", async () => {
    await openSlowField();
    const e = await rejection(env.svc.act(action("type", "#bio", [TEXT]), { signal: AbortSignal.abort() }));
    expect(e.code).toBe("ABORTED");
    expect(await typed()).toBe(0);
  });

  it("options.signal must be an AbortSignal", async () => {
    await expect(env.svc.act(action("click", "#submit"), { signal: "stop" as unknown as AbortSignal })).rejects.toThrow("options.signal: expected an AbortSignal");
  });
});

describe("model operations", () => {
  it("act(instruction): the abort closes the model request and the act rejects at once", async () => {
    await openSlowField();
    world.fake.script({ kind: "hang" });
    const controller = new AbortController();
    const acting = env.svc.act("please click the Submit button", { signal: controller.signal });
    await waitFor(() => world.fake.requests.length === 1);
    const t0 = Date.now();
    controller.abort();
    const e = await rejection(acting);
    expect(e.code).toBe("ABORTED");
    expect(Date.now() - t0).toBeLessThan(SLACK_MS);
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]!.response).toEqual({ status: 0 }); // never answered
    expect(await last()).toMatchObject({ method: "act", parameters: { instruction: "please click the Submit button" }, result: { stopped: "aborted" } });
  });

  it("extract and observe take a signal too", async () => {
    await openSlowField();
    world.fake.script({ kind: "delay", ms: 8000 }, { kind: "delay", ms: 8000 });
    const e1 = await rejection(env.svc.extract("the name", { signal: AbortSignal.timeout(1500) }));
    const e2 = await rejection(env.svc.observe("the buttons", { signal: AbortSignal.timeout(1500) }));
    // Both stopped inside their model call: each request was closed unanswered.
    expect(world.fake.requests.map((r) => r.response)).toEqual([undefined, undefined]);
    expect([e1.code, e2.code]).toEqual(["ABORTED", "ABORTED"]);
    const h = await env.svc.history;
    expect(h.slice(-2).map((x) => [x.method, (x.result as { stopped?: string }).stopped])).toEqual([
      ["extract", "aborted"],
      ["observe", "aborted"],
    ]);
  });
});

describe("agent toolTimeout", () => {
  it("a tool past toolTimeout is stopped for real: the typing ends and the model hears how far it got", async () => {
    await openSlowField();
    world.fake.script((req) => step("perform", { ref: lineOf(req, "textbox", "Bio")!.ref, method: "type", arguments: [TEXT] }), step("done", { message: "gave up", success: false }));
    const result = await env.svc.agent().execute({ instruction: "type a lot into Bio", toolTimeout: 1000 });
    expect(result.actions[0]).toMatchObject({ type: "perform", ok: false });
    expect(result.actions[0]!.result).toMatch(/^perform did not finish within 1000 ms \(toolTimeout\) and was stopped \(typed \d+ of 200 characters\)$/);
    await expectStopped();
  });
});
