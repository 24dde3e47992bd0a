/**
 * Every way act()/goto() can fail raises the matching ServiceError subclass, with a stable code and, where
 * the user can do something about it, a hint. Failures must be loud: nothing "succeeds" silently.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { action, makeService, textIn, useService } from "../support/browser.js";
import { Service } from "../../src/service.js";
import {
  ServiceClickError,
  ServiceElementNotFoundError,
  ServiceError,
  ServiceIframeError,
  ServiceInvalidArgumentError,
  ServiceNavigationError,
  ServiceNotInitializedError,
  ServiceShadowRootMissingError,
  ServiceStaleRefError,
  ServiceTimeoutError,
  XPathResolutionError,
} from "../../src/errors.js";

const server = useFixtureServer();

const env = useService();

/** Awaits `work`, expecting it to reject with an instance of `cls` that carries a code (and a hint when asked). */
async function expectError(work: Promise<unknown>, cls: new (...a: any[]) => ServiceError, opts: { hint?: boolean; message?: RegExp } = {}): Promise<ServiceError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "expected a rejection").toBeInstanceOf(cls);
  const e = err as ServiceError;
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.name).toBe(cls.name);
  expect(typeof e.code).toBe("string");
  expect(e.code).not.toBe("SERVICE_ERROR");
  if (opts.hint ?? true) {
    expect(e.hint, `${cls.name} should carry a hint: ${e.message}`).toBeTruthy();
    expect(e.message).toContain(e.hint!);
  }
  if (opts.message) expect(e.message).toMatch(opts.message);
  // One line: CLI and logs print the message as is.
  expect(e.message).not.toContain("\n");
  return e;
}

const act = (method: string, selector: string, args: string[] = []) => env.svc.act(action(method, selector, args));

describe("selector failures", () => {
  beforeAll(async () => {
    await env.svc.page.goto(server.url("iframes.html"));
  });

  it("a CSS selector that matches nothing → ServiceElementNotFoundError", async () => {
    const e = await expectError(act("click", "#does-not-exist"), ServiceElementNotFoundError, { message: /#does-not-exist/ });
    expect(e.code).toBe("ELEMENT_NOT_FOUND");
    await expectError(act("click", "iframe#cross-frame >> #nope"), ServiceElementNotFoundError);
  });

  it("an invalid CSS selector → ServiceElementNotFoundError", async () => {
    await expectError(act("click", "button[[["), ServiceElementNotFoundError, { hint: false, message: /button\[\[\[/ });
  });

  it("an invalid XPath → XPathResolutionError", async () => {
    const e = await expectError(act("click", "//button[@id="), XPathResolutionError, { hint: false, message: /XPath/ });
    expect(e.code).toBe("XPATH_UNRESOLVED");
  });

  it("an XPath that matches nothing → XPathResolutionError", async () => {
    await expectError(act("click", "/html/body/nav/button"), XPathResolutionError, { message: /\/html\/body\/nav\/button/ });
    await expectError(act("click", "/html/body/iframe[2]/html/body/nav"), XPathResolutionError);
  });

  it("a path or hop through an iframe that is not there → ServiceIframeError", async () => {
    const e = await expectError(act("click", "/html/body/iframe[7]/html/body/button"), ServiceIframeError, { message: /no iframe at \/html\/body\/iframe\[7\]/ });
    expect(e.code).toBe("IFRAME_UNRESOLVED");
    await expectError(act("click", "iframe#no-such-frame >> button"), ServiceIframeError, { message: /no iframe matches "iframe#no-such-frame"/ });
  });

  it("a >> hop on an element that is neither an iframe nor a shadow host → shadow-root/iframe error", async () => {
    const err = await act("click", "#main-button >> span").catch((e: unknown) => e);
    expect(err instanceof ServiceShadowRootMissingError || err instanceof ServiceIframeError, String(err)).toBe(true);
    expect((err as ServiceError).hint).toBeTruthy();
  });

  it("#shadow-root on an element without one → ServiceShadowRootMissingError", async () => {
    const e = await expectError(act("click", "/html/body/button/#shadow-root/span"), ServiceShadowRootMissingError);
    expect(e.code).toBe("SHADOW_ROOT_MISSING");
  });

  it("the page is unchanged after failed actions", async () => {
    expect(await textIn(env.svc.page, "#result")).toBe("");
  });
});

describe("element state failures", () => {
  it("clicking a hidden element → ServiceClickError", async () => {
    await env.svc.page.goto(server.url("dropdown.html"));
    // It stays hidden: the act's own timeout (not the 10 s default) bounds the wait for it. The wait's deadline
    // and the act's timeout are the same moment: either ends it, and either names what the last check saw.
    const e = await env.svc.act(action("click", "#opt-apple"), { timeout: 1000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e instanceof ServiceClickError || e instanceof ServiceTimeoutError, String(e)).toBe(true);
    expect((e as Error).message).toContain("not visible");
  });

  it("selectOptionFromDropdown on a non-<select> or with a missing option → ServiceElementNotFoundError", async () => {
    await expectError(act("selectOptionFromDropdown", "#custom-trigger", ["Apple"]), ServiceElementNotFoundError);
    const e = await expectError(act("selectOptionFromDropdown", "#color", ["Purple"]), ServiceElementNotFoundError);
    expect(e.hint).toMatch(/Red.*Green.*Blue/);
  });

  it("fill on something that is not a text field → ServiceElementNotFoundError", async () => {
    await expectError(act("fill", "#custom-trigger", ["x"]), ServiceElementNotFoundError);
  });
});

describe("bad actions", () => {
  it("an unknown method → ServiceInvalidArgumentError naming the methods", async () => {
    const e = await expectError(act("teleport", "#color"), ServiceInvalidArgumentError, { message: /teleport/ });
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.hint).toMatch(/click/);
  });

  it("a malformed Action → ServiceInvalidArgumentError", async () => {
    const bad = [{ selector: "#color", method: "click" }, { selector: 1, description: "", method: "click", arguments: [] }, { selector: "#x", description: "", method: "click", arguments: "no" }];
    for (const a of bad) await expectError(env.svc.act(a as never), ServiceInvalidArgumentError, { hint: false });
    await expectError(env.svc.act(null as never), ServiceInvalidArgumentError, { hint: false });
  });

  it("missing arguments and bad argument values → ServiceInvalidArgumentError", async () => {
    await expectError(act("type", "#color"), ServiceInvalidArgumentError, { hint: false, message: /arguments\[0\]/ });
    await expectError(act("press", ""), ServiceInvalidArgumentError, { hint: false });
    await expectError(act("dragAndDrop", "#color"), ServiceInvalidArgumentError, { hint: false });
    await expectError(act("click", ""), ServiceInvalidArgumentError, { hint: false });
    await expectError(act("scrollTo", "", ["halfway"]), ServiceInvalidArgumentError, { hint: false });
    await expectError(act("press", "", ["NoSuchKey"]), ServiceInvalidArgumentError);
  });
});

describe("navigation failures", () => {
  it("a malformed URL or a bad scheme → ServiceInvalidArgumentError", async () => {
    for (const url of ["not a url", "", "http//missing-colon", "javascript:alert(1)", "ftp://example.com/"]) {
      await expectError(env.svc.page.goto(url), ServiceInvalidArgumentError, { hint: false });
    }
  });

  it("an unreachable URL → ServiceNavigationError", async () => {
    const e = await expectError(env.svc.page.goto("http://127.0.0.1:1/"), ServiceNavigationError, { message: /127\.0\.0\.1:1/ });
    expect(e.code).toBe("NAVIGATION_FAILED");
  });

  it("the page still works after a failed navigation", async () => {
    await env.svc.page.goto(server.url("iframes.html"));
    await act("click", "#main-button");
    expect(await textIn(env.svc.page, "#result")).toBe("clicked: main-button");
  });
});

describe("lifecycle", () => {
  it("every method before init() → ServiceNotInitializedError", async () => {
    const svc = new Service({ verbose: 0 });
    const calls: Array<() => unknown> = [
      () => svc.context,
      () => svc.page,
      () => svc.act(action("click", "#x")),
      () => svc.extract(),
    ];
    for (const call of calls) {
      const err = await Promise.resolve().then(call).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ServiceNotInitializedError);
      expect((err as ServiceError).code).toBe("NOT_INITIALIZED");
      expect((err as ServiceError).hint).toMatch(/init\(\)/);
    }
    await svc.close(); // closing a never-started service is a no-op
  });

  it("after close() → ServiceNotInitializedError", async () => {
    const svc = makeService();
    await svc.init();
    await svc.close();
    await expectError(svc.act(action("click", "#x")), ServiceNotInitializedError);
    expect(() => svc.page).toThrow(ServiceNotInitializedError);
  });

  it("invalid constructor options → ServiceInvalidArgumentError", () => {
    expect(() => new Service({ domSettleTimeout: -1 })).toThrow(ServiceInvalidArgumentError);
    expect(() => new Service({ localBrowserLaunchOptions: { headles: true } as never })).toThrow(ServiceInvalidArgumentError);
    expect(() => new Service({ localBrowserLaunchOptions: { viewport: { width: 0, height: 10 } } })).toThrow(ServiceInvalidArgumentError);
  });
});

describe("stale refs", () => {
  it("a ref whose element was removed → ServiceStaleRefError; an unknown ref too", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("iframes.html"));
    const { pageText } = await svc.extract();
    const line = pageText.split("\n").find((l) => l.includes("Main button") && /\be\d+\b/.test(l));
    expect(line, pageText).toBeDefined();
    const ref = /\b(e\d+)\b/.exec(line!)![1]!;
    // The ref works while the element exists …
    await act("click", ref);
    expect(await textIn(svc.page, "#result")).toBe("clicked: main-button");
    // … and fails loudly once it is gone, even if an identical element takes its place.
    await svc.page.evaluate(() => {
      const old = document.getElementById("main-button")!;
      const twin = old.cloneNode(true);
      old.replaceWith(twin);
    });
    const e = await expectError(act("click", ref), ServiceStaleRefError, { message: new RegExp(ref) });
    expect(e.code).toBe("STALE_REF");
    await expectError(act("click", "e99999"), ServiceStaleRefError);
  });

  it("refs from before a navigation are stale", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("iframes.html"));
    const { pageText } = await svc.extract();
    const ref = /\b(e\d+)\b/.exec(pageText.split("\n").find((l) => l.includes("Main button"))!)![1]!;
    await svc.page.goto(server.url("iframes.html"));
    await expectError(act("click", ref), ServiceStaleRefError);
  });
});
