/**
 * Code a tenant leaves in a tab (server/cdp/code-guard.ts), on a real Chrome: a new-document script added at
 * about:blank is carried into chrome://extensions (the control shows it); forwarded by svc's filter it runs in web
 * pages and ends at once in Chrome's own. Likewise unpinned evaluate and callFunctionOn. A breakpoint condition is
 * refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../src/browser/launch.js";
import { TenantCdpFilter } from "../../src/server/cdp/filter.js";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { openPlaces } from "../support/places.js";
import { type CdpReply, rawCdp } from "../support/raw-cdp.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";

let browser: LaunchedBrowser;
let server: FixtureServer;
let cdp: Awaited<ReturnType<typeof rawCdp>>;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser({ headless: true, executablePath: CHROMIUM }), startFixtureServer()]);
  cdp = await rawCdp(browser.wsEndpoint);
});

afterAll(async () => {
  cdp?.close();
  await Promise.all([browser?.close(), server?.close()]);
});

/** What the tenant's script leaves in each document it runs in. */
const MARK = `globalThis.__svcTenantRan = "ran at " + location.href;`;
let nextId = 1000;

/**
 * A new tab at about:blank, a session in it, and `method` sent as svc's filter forwards it (`filtered`) or
 * as the tenant wrote it. Returns the tab's session.
 */
async function tabWith(method: string, params: Record<string, unknown>, filtered: boolean): Promise<{ session: string; reply: CdpReply; send: (method: string, params: Record<string, unknown>) => Promise<CdpReply> }> {
  const { targetId } = (await cdp.send("Target.createTarget", { url: "about:blank" })).result as { targetId: string };
  // The filter learns the tenant's session from the answer to its attach, as on svc's proxy.
  const filter = new TenantCdpFilter({ places: openPlaces((id) => id === targetId) });
  const attachId = nextId++;
  const attach = JSON.stringify({ id: attachId, method: "Target.attachToTarget", params: { targetId, flatten: true } });
  if (!("forward" in filter.fromClient(Buffer.from(attach), false))) throw new Error("the filter refused the attach");
  const attached = await cdp.raw(attach, attachId);
  filter.fromBrowser(Buffer.from(JSON.stringify(attached)), false);
  const session = attached.result.sessionId as string;
  await cdp.send("Page.enable", {}, session);
  if (method.startsWith("Debugger.")) await cdp.send("Debugger.enable", {}, session);
  const send = async (method: string, params: Record<string, unknown>): Promise<CdpReply> => {
    const id = nextId++;
    const message = JSON.stringify({ id, method, params, sessionId: session });
    if (!filtered) return cdp.raw(message, id);
    const verdict = filter.fromClient(Buffer.from(message), false);
    if ("reply" in verdict) return JSON.parse(verdict.reply) as CdpReply;
    if (!("forward" in verdict)) throw new Error("the filter held the message");
    return cdp.raw(verdict.forward, id);
  };
  return { session, reply: await send(method, params), send };
}

/** Navigates the tab (as the tenant's extension would, not through the filter) and waits for the new document. */
async function goTo(session: string, url: string): Promise<void> {
  await cdp.send("Page.navigate", { url }, session);
  await waitFor(async () => (await evaluate(session, "location.href + ' ' + document.readyState")) === `${url} complete`);
}

async function evaluate(session: string, expression: string): Promise<unknown> {
  return (await cdp.send("Runtime.evaluate", { expression, returnByValue: true }, session)).result?.result?.value;
}

const ran = (session: string) => evaluate(session, "globalThis.__svcTenantRan ?? 'not run'");

/** Adds an about:blank frame to the tab's page (DOM calls only: Chrome's pages refuse HTML strings) and says whether the script ran in it. */
async function frameRan(session: string): Promise<unknown> {
  const expression = `new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.addEventListener("load", () => resolve(frame.contentWindow.__svcTenantRan ?? "not run"), { once: true });
    frame.src = "about:blank";
    document.body.append(frame);
  })`;
  return (await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, session)).result?.result?.value;
}

describe("a tenant's script for new documents", () => {
  it("control: as written, Chrome runs it in chrome://extensions once the tab gets there", async () => {
    const { session } = await tabWith("Page.addScriptToEvaluateOnNewDocument", { source: MARK }, false);
    await goTo(session, "chrome://extensions/");
    expect(await ran(session)).toBe("ran at chrome://extensions/");
  });

  it("as svc forwards it: runs in web pages, data: and their about:blank frames; ends at once in chrome://extensions and chrome://version", async () => {
    const { session } = await tabWith("Page.addScriptToEvaluateOnNewDocument", { source: `"use strict"; ${MARK} globalThis.__svcStrict = (function () { return this === undefined; })();` }, true);
    const page = server.url("veil.html");
    await goTo(session, page);
    expect(await ran(session)).toBe(`ran at ${page}`);
    // The tenant's leading "use strict" is still its directive.
    expect(await evaluate(session, "globalThis.__svcStrict")).toBe(true);
    expect(await frameRan(session)).toBe("ran at about:blank");
    const data = "data:text/html,<p>data page</p>";
    await goTo(session, data);
    expect(await ran(session)).toBe(`ran at ${data}`);
    for (const chromePage of ["chrome://extensions/", "chrome://version/"]) {
      await goTo(session, chromePage);
      expect(await ran(session)).toBe("not run");
    }
    // A frame of Chrome's own page (about:blank, its origin inherited) does not run it either.
    expect(await frameRan(session)).toBe("not run");
  });

  it("a script declaring what the guard reads cannot get past it", async () => {
    // Hoisted declarations take effect before the guard runs: none of these may make it pass in Chrome's pages.
    const attempts = [`function RegExp() { return { test: () => true }; } ${MARK}`, `var location = "https://example.com/"; ${MARK}`, `function location() {} ${MARK}`];
    for (const source of attempts) {
      const { session } = await tabWith("Page.addScriptToEvaluateOnNewDocument", { source }, true);
      await goTo(session, "chrome://version/");
      expect(await ran(session), source).toBe("not run");
    }
  });
});

describe("a tab's code commands that name no document for certain, as svc forwards them", () => {
  it("answer in a web page as sent; in Chrome's own page they end at once, whatever the tab's next document is", async () => {
    const { session, send } = await tabWith("Runtime.enable", {}, true);
    const page = server.url("veil.html");
    await goTo(session, page);
    const contexts = () => cdp.events.filter((e) => e.sessionId === session && e.method === "Runtime.executionContextCreated" && e.params.context.auxData?.isDefault).map((e) => e.params.context as { id: number; uniqueId: string });
    const context = await waitFor(() => contexts().at(-1));
    const value = (r: CdpReply) => (r.result?.exceptionDetails ? `threw ${String(r.result.result?.value ?? r.result.exceptionDetails.text)}` : r.result?.result?.value) as unknown;
    const probes = (contextId: number) => [
      send("Runtime.evaluate", { expression: "document.title", returnByValue: true }),
      send("Runtime.evaluate", { expression: "'use strict'; [location.protocol, this === undefined]", contextId, returnByValue: true }),
      send("Runtime.evaluate", { expression: "let n = 20; await Promise.resolve(n + 1)", replMode: true, awaitPromise: true, returnByValue: true }),
      send("Runtime.callFunctionOn", { functionDeclaration: "async function (a) { return [a, location.protocol]; }", executionContextId: contextId, arguments: [{ value: 7 }], awaitPromise: true, returnByValue: true }),
    ];
    expect(await Promise.all(probes(context.id).map(async (p) => value(await p)))).toEqual(["Veil", ["http:", false], 21, [7, "http:"]]);
    let current = context;
    for (const chromePage of ["chrome://version/", "chrome://extensions/"]) {
      await goTo(session, chromePage);
      const there = await waitFor(() => {
        const latest = contexts().at(-1);
        return latest && latest.uniqueId !== current.uniqueId ? latest : undefined;
      });
      current = there;
      const answers = await Promise.all(probes(there.id).map(async (p) => value(await p)));
      expect(answers).toEqual(Array(4).fill("threw svc: a tenant's code runs only in web pages"));
      // Pinned to a document by its uniqueContextId, it is not guarded: it names this document for certain.
      expect(value(await send("Runtime.evaluate", { expression: "location.protocol", uniqueContextId: there.uniqueId, returnByValue: true }))).toBe("chrome:");
    }
  });
});

describe("a breakpoint condition", () => {
  it("is refused; the same breakpoint without one is forwarded", async () => {
    const condition = `(${MARK} false)`;
    for (const method of ["Debugger.setBreakpointByUrl", "Debugger.setBreakpoint", "Debugger.setBreakpointOnFunctionCall"]) {
      const { reply } = await tabWith(method, { lineNumber: 0, urlRegex: ".*", location: { scriptId: "1", lineNumber: 0 }, objectId: "x", condition }, true);
      expect(reply.error?.message, method).toMatch(/refused by svc: a breakpoint condition runs in whatever page/);
    }
    const { session, reply } = await tabWith("Debugger.setBreakpointByUrl", { lineNumber: 0, urlRegex: "never-loaded" }, true);
    expect(reply.error).toBeUndefined();
    expect(await evaluate(session, "1 + 1")).toBe(2);
  });
});
