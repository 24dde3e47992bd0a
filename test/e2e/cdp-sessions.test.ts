/**
 * CDP sessions own their pending calls: a call the browser will never answer (its page crashed or closed,
 * the browser exited) rejects at once with the typed error, and every call has a protocol timeout. The
 * calls are real: `page.evaluate` of a promise that never settles, in real Chrome.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { launchedOf, makeService, useService, waitFor } from "../support/browser.js";
import { ServiceBrowserClosedError, ServiceError, ServiceTargetCrashedError, ServiceTimeoutError } from "../../src/errors.js";
import type { Page } from "../../src/browser/page.js";

const server = useFixtureServer();

const env = useService();
const NEVER = "new Promise(() => {})";

/** Awaits a rejection (fails the test when `work` resolves) and how long it took after `from`. */
async function rejection(work: Promise<unknown>, from: () => number): Promise<{ error: ServiceError; after: number }> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a rejection").toBeInstanceOf(ServiceError);
  return { error: error as ServiceError, after: Date.now() - from() };
}

async function freshPage(): Promise<Page> {
  return env.svc.context.newPage(server.url("forms.html"));
}

describe("a call pending when its page ends", () => {
  it("the page crashes: the pending evaluate rejects at once with TARGET_CRASHED, its stack showing the caller", async () => {
    const page = await freshPage();
    let crashedAt = 0;
    const pending = rejection(page.evaluate(NEVER), () => crashedAt);
    // Let the evaluate reach the renderer first.
    await waitFor(() => page.mainSession.pendingCount === 1);
    crashedAt = Date.now();
    const crash = page.mainSession.send("Page.crash").catch((e: unknown) => e);
    const { error, after } = await pending;
    expect(error).toBeInstanceOf(ServiceTargetCrashedError);
    expect(error.code).toBe("TARGET_CRASHED");
    expect(error.message).toMatch(/^Runtime\.evaluate: the page crashed/);
    expect(error.stack).toContain("cdp-sessions.test.ts");
    expect(after).toBeLessThan(5000);
    expect(await crash).toBeInstanceOf(ServiceTargetCrashedError);
    expect(page.mainSession.pendingCount).toBe(0);
    // A new call is refused the same way, and the rest of the browser still works.
    await expect(page.evaluate("1")).rejects.toBeInstanceOf(ServiceTargetCrashedError);
    await page.close();
    expect(await env.svc.page.evaluate("1 + 1")).toBe(2);
  });

  it("the page is closed (Target.closeTarget): the pending evaluate rejects at once with BROWSER_CLOSED naming the page", async () => {
    const page = await freshPage();
    let closedAt = 0;
    const pending = rejection(page.evaluate(NEVER), () => closedAt);
    await waitFor(() => page.mainSession.pendingCount === 1);
    closedAt = Date.now();
    await env.svc.context.connection.root.send("Target.closeTarget", { targetId: page.targetId });
    const { error, after } = await pending;
    expect(error).toBeInstanceOf(ServiceBrowserClosedError);
    expect(error.message).toBe("Runtime.evaluate: the page is closed");
    expect(after).toBeLessThan(5000);
    await waitFor(() => page.isClosed);
    await expect(page.evaluate("1")).rejects.toBeInstanceOf(ServiceBrowserClosedError);
  });

  it("a popup closes itself (window.close) while a call on it is pending: BROWSER_CLOSED", async () => {
    const opener = await freshPage();
    const before = env.svc.context.pages().length;
    await opener.mainSession.send("Runtime.evaluate", { expression: `window.open(${JSON.stringify(server.url("forms.html"))}, "_blank", "popup"); 0`, userGesture: true });
    await waitFor(() => env.svc.context.pages().length === before + 1);
    const popup = env.svc.context.pages().at(-1)!;
    expect(popup).not.toBe(opener);
    let closedAt = 0;
    const pending = rejection(popup.evaluate(NEVER), () => closedAt);
    await waitFor(() => popup.mainSession.pendingCount === 1);
    closedAt = Date.now();
    // A window a script opened may close itself; the evaluate above keeps waiting in the meantime.
    // On a loaded machine the close can overtake this call's own answer: it may fail the same way.
    await popup.mainSession.send("Runtime.evaluate", { expression: "setTimeout(() => window.close(), 200); 0" }).catch((e: unknown) => expect(e).toBeInstanceOf(ServiceBrowserClosedError));
    const { error, after } = await pending;
    expect(error).toBeInstanceOf(ServiceBrowserClosedError);
    expect(error.message).toBe("Runtime.evaluate: the page is closed");
    expect(after).toBeLessThan(5000);
    await opener.close();
  });
});

describe("protocol timeout and browser exit", () => {
  it("a configured protocol timeout rejects a call with no answer with TIMEOUT naming the method; the browser's exit rejects the rest with BROWSER_CLOSED", async () => {
    const svc = makeService({ localBrowserLaunchOptions: { protocolTimeout: 1500 } });
    await svc.init();
    try {
      const page = svc.page;
      await page.goto(server.url("forms.html"));
      const started = Date.now();
      const { error, after } = await rejection(page.evaluate(NEVER), () => started);
      expect(error).toBeInstanceOf(ServiceTimeoutError);
      expect(error.message).toMatch(/^Runtime\.evaluate: the browser did not answer within 1500 ms \(protocol timeout\)/);
      expect(error.stack).toContain("cdp-sessions.test.ts");
      expect(after).toBeGreaterThanOrEqual(1400);
      expect(after).toBeLessThan(10_000);
      expect(page.mainSession.pendingCount).toBe(0);
      // The session is still good for calls that are answered.
      expect(await page.evaluate("document.title")).toBe("Forms");

      // The browser exits (killed) while a call waits: it rejects with BROWSER_CLOSED, not the timeout.
      let killedAt = 0;
      const pending = rejection(page.evaluate(NEVER), () => killedAt);
      await waitFor(() => page.mainSession.pendingCount === 1);
      killedAt = Date.now();
      process.kill(launchedOf(svc).pid, "SIGKILL");
      const exit = await pending;
      // BROWSER_CLOSED, not the 1500 ms protocol timeout's TIMEOUT: the exit, not the clock, ended the call.
      expect(exit.error).toBeInstanceOf(ServiceBrowserClosedError);
    } finally {
      await svc.close({ force: true }).catch(() => {});
    }
  });

  it("an invalid protocolTimeout is refused naming the field", () => {
    expect(() => makeService({ localBrowserLaunchOptions: { protocolTimeout: -1 } })).toThrow(/protocolTimeout/);
  });
});

describe("inputFlushed: a renderer round trip after every input event", () => {
  it("is false after an input event and true only once a Runtime call sent after its answer is answered", async () => {
    const page = await freshPage();
    const s = page.mainSession;
    expect(s.inputFlushed).toBe(false);
    await s.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 5, y: 5 });
    expect(s.inputFlushed).toBe(false);
    // Sent while an input is in flight: not a flush of that input.
    const move = s.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 6, y: 6 });
    await s.send("Runtime.evaluate", { expression: "0" });
    await move;
    expect(s.inputFlushed).toBe(false);
    await s.send("Runtime.evaluate", { expression: "0" });
    expect(s.inputFlushed).toBe(true);
    await s.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 7, y: 7 });
    expect(s.inputFlushed).toBe(false);
  });
});
