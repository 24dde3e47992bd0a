/**
 * The CDP filter's rewrite of a tenant's stored code (src/server/cdp/code-guard.ts): what is forwarded for a
 * script for new documents (the guard first, a leading "use strict" kept first), and which breakpoints pass.
 * What the guard does in Chrome is tested against a real one in test/e2e/security-code-guard.test.ts.
 */
import { describe, expect, it } from "vitest";
import { guardFunction, guardOf, scriptGuard } from "../../src/server/cdp/code-guard.js";
import { TenantCdpFilter } from "../../src/server/cdp/filter.js";
import { openPlaces } from "../support/places.js";

/** The guard of a session with no extension (the filters here name none). */
const SCRIPT_GUARD = scriptGuard();

const forwarded = (method: string, params: Record<string, unknown>): { params: Record<string, unknown> } | { error: string } => {
  const v = new TenantCdpFilter().fromClient(Buffer.from(JSON.stringify({ id: 1, method, params })), false);
  if ("reply" in v) return { error: (JSON.parse(v.reply) as { error: { message: string } }).error.message };
  if (!("forward" in v)) throw new Error("held");
  return JSON.parse(String(v.forward)) as { params: Record<string, unknown> };
};

describe("a tenant's stored code on the way to Chrome", () => {
  it("a script for new documents gets the guard first; a leading directive stays first; other fields are kept", () => {
    expect(forwarded("Page.addScriptToEvaluateOnNewDocument", { source: "window.x = 1;", worldName: "w", runImmediately: true })).toEqual({
      id: 1,
      method: "Page.addScriptToEvaluateOnNewDocument",
      params: { source: `${SCRIPT_GUARD}window.x = 1;`, worldName: "w", runImmediately: true },
    });
    expect(forwarded("Page.addScriptToEvaluateOnNewDocument", { source: ` 'use strict';\nwindow.x = 1;` })).toMatchObject({ params: { source: ` 'use strict';${SCRIPT_GUARD}\nwindow.x = 1;` } });
    expect(forwarded("Page.addScriptToEvaluateOnLoad", { scriptSource: "window.y = 2;" })).toMatchObject({ params: { scriptSource: `${SCRIPT_GUARD}window.y = 2;` } });
    // Not a string: forwarded as it came, for Chrome to refuse.
    expect(forwarded("Page.addScriptToEvaluateOnNewDocument", { source: 7 })).toMatchObject({ params: { source: 7 } });
  });

  it("the guard is one statement on the script's first line (its line numbers are unchanged)", () => {
    expect(SCRIPT_GUARD).not.toContain("\n");
    expect(() => new Function(SCRIPT_GUARD)).not.toThrow();
  });

  it("lets run what a web page or the session's own extension holds, nothing else", () => {
    // What Chrome's real pages make of it is tested against a real Chrome (test/e2e/security-code-guard.test.ts);
    // here, the page's `location` as each kind of document has it.
    const own = "abcdefghijklmnopabcdefghijklmnop";
    const other = "ponmlkjihgfedcbaponmlkjihgfedcba";
    const runs = (l: { protocol: string; host?: string; href?: string; ancestorOrigins?: string[] }) => {
      const location = { host: "", href: `${l.protocol}//x`, ancestorOrigins: [], ...l };
      try {
        new Function("location", `${scriptGuard([own, "not an id"])} return true;`)(location);
        return true;
      } catch {
        return false;
      }
    };
    expect(runs({ protocol: "https:" })).toBe(true);
    expect(runs({ protocol: "data:" })).toBe(true);
    expect(runs({ protocol: "blob:", href: "blob:https://example.com/1" })).toBe(true);
    expect(runs({ protocol: "about:", ancestorOrigins: ["https://example.com", "null"] })).toBe(true);
    expect(runs({ protocol: "chrome-extension:", host: own })).toBe(true);
    expect(runs({ protocol: "about:", ancestorOrigins: [`chrome-extension://${own}`] })).toBe(true);
    expect(runs({ protocol: "chrome-extension:", host: other })).toBe(false);
    expect(runs({ protocol: "about:", ancestorOrigins: [`chrome-extension://${other}`] })).toBe(false);
    expect(runs({ protocol: "about:", ancestorOrigins: ["chrome://extensions"] })).toBe(false);
    expect(runs({ protocol: "about:", ancestorOrigins: [`chrome-untrusted://${own}`] })).toBe(false);
    expect(runs({ protocol: "blob:", href: "blob:chrome://extensions/1" })).toBe(false);
    for (const protocol of ["chrome:", "devtools:", "file:", "chrome-untrusted:", "view-source:"]) expect(runs({ protocol }), protocol).toBe(false);
    // A session's guard follows its extension ids (known once it started).
    const ids: string[] = [];
    const guard = guardOf(() => ids);
    expect(guard()).toBe(scriptGuard([]));
    ids.push(own);
    expect(guard()).toBe(scriptGuard([own]));
    expect(guard()).not.toBe(scriptGuard([]));
    // Only well-formed ids are written into the guard.
    expect(scriptGuard([own, `"]; evil(); ["`])).not.toContain("evil");
  });

  it("live edit (Debugger.setScriptSource) is refused", () => {
    expect(forwarded("Debugger.setScriptSource", { scriptId: "5", scriptSource: "evil()" })).toEqual({ error: expect.stringMatching(/^Debugger.setScriptSource refused by svc: live edit/) });
  });

  it("a breakpoint with a condition is refused; without one (or an empty one) it is forwarded", () => {
    for (const method of ["Debugger.setBreakpoint", "Debugger.setBreakpointByUrl", "Debugger.setBreakpointOnFunctionCall"]) {
      expect(forwarded(method, { lineNumber: 1, condition: "x > 1" })).toEqual({ error: expect.stringMatching(new RegExp(`^${method} refused by svc: a breakpoint condition`)) });
      expect(forwarded(method, { lineNumber: 1 })).toMatchObject({ params: { lineNumber: 1 } });
      expect(forwarded(method, { lineNumber: 1, condition: "" })).toMatchObject({ params: { condition: "" } });
    }
  });
});

describe("a tab's code commands", () => {
  /** A filter that knows session S on tab T and session W on a worker (as svc's watch would say). */
  function filterWith(): (m: object) => Record<string, unknown> {
    const f = new TenantCdpFilter({ places: openPlaces((id) => id === "T") });
    let id = 100;
    for (const [session, targetId] of [["S", "T"], ["W", "worker"]]) {
      f.fromClient(Buffer.from(JSON.stringify({ id: ++id, method: "Target.attachToTarget", params: { targetId, flatten: true } })), false);
      f.fromBrowser(Buffer.from(JSON.stringify({ id, result: { sessionId: session } })), false);
    }
    return (m) => {
      const v = f.fromClient(Buffer.from(JSON.stringify(m)), false);
      if (!("forward" in v)) throw new Error(JSON.stringify(v));
      return (JSON.parse(String(v.forward)) as { params: Record<string, unknown> }).params;
    };
  }

  it("evaluate, compileScript and callFunctionOn in a context number or none: guarded", () => {
    const send = filterWith();
    expect(send({ id: 1, method: "Runtime.evaluate", params: { expression: "1 + 1" }, sessionId: "S" })).toEqual({ expression: `${SCRIPT_GUARD}1 + 1` });
    expect(send({ id: 2, method: "Runtime.evaluate", params: { expression: "2", contextId: 3 }, sessionId: "S" })).toEqual({ expression: `${SCRIPT_GUARD}2`, contextId: 3 });
    expect(send({ id: 3, method: "Runtime.compileScript", params: { expression: "3", persistScript: true, sourceURL: "" }, sessionId: "S" })).toMatchObject({ expression: `${SCRIPT_GUARD}3` });
    const fn = "function (a) { return a; }";
    expect(send({ id: 4, method: "Runtime.callFunctionOn", params: { functionDeclaration: fn, executionContextId: 3 }, sessionId: "S" })).toEqual({ functionDeclaration: guardFunction(fn), executionContextId: 3 });
    expect(guardFunction(fn)).toBe(`(() => { ${SCRIPT_GUARD} })(), ${fn}`);
  });

  it("pinned to one document (uniqueContextId, objectId), or not in a tab: unchanged", () => {
    const send = filterWith();
    expect(send({ id: 1, method: "Runtime.evaluate", params: { expression: "1", uniqueContextId: "u.1" }, sessionId: "S" })).toEqual({ expression: "1", uniqueContextId: "u.1" });
    expect(send({ id: 2, method: "Runtime.callFunctionOn", params: { functionDeclaration: "function () {}", objectId: "o.1" }, sessionId: "S" })).toEqual({ functionDeclaration: "function () {}", objectId: "o.1" });
    expect(send({ id: 3, method: "Runtime.evaluate", params: { expression: "1" }, sessionId: "W" })).toEqual({ expression: "1" });
  });

  it("a field the command does not read pins nothing: evaluate with an objectId, callFunctionOn with a non-string one", () => {
    const send = filterWith();
    expect(send({ id: 1, method: "Runtime.evaluate", params: { expression: "1", objectId: "o.1" }, sessionId: "S" })).toEqual({ expression: `${SCRIPT_GUARD}1`, objectId: "o.1" });
    expect(send({ id: 2, method: "Runtime.evaluate", params: { expression: "1", uniqueContextId: 5 }, sessionId: "S" })).toEqual({ expression: `${SCRIPT_GUARD}1`, uniqueContextId: 5 });
    const fn = "function () {}";
    expect(send({ id: 3, method: "Runtime.callFunctionOn", params: { functionDeclaration: fn, executionContextId: 1, objectId: 7 }, sessionId: "S" })).toEqual({ functionDeclaration: guardFunction(fn), executionContextId: 1, objectId: 7 });
  });
});
