/**
 * The tenant CDP filter and a session's own uploaded extensions (src/server/cdp/filter.ts): full CDP on targets of
 * chrome-extension://<own id>/, none on any other extension's or on chrome:// targets, Extensions.* only
 * naming its own ids, and Extensions.getExtensions answers with their paths hidden.
 */
import { describe, expect, it } from "vitest";
import { TenantCdpFilter } from "../../src/server/cdp/filter.js";

const OWN = "abcdefghijklmnopabcdefghijklmnop";
const OTHER = "mhjfbmdgcfjbbpaeojofohoefgiehjai";

const msg = (m: object) => Buffer.from(JSON.stringify(m));
const attached = (sessionId: string, url: string, type = "service_worker") => msg({ method: "Target.attachedToTarget", params: { sessionId, targetInfo: { targetId: `t-${sessionId}`, type, url } } });
const refusedIn = (f: TenantCdpFilter, m: object) => "reply" in f.fromClient(msg(m), false);

describe("TenantCdpFilter and the session's own extensions", () => {
  const filter = new TenantCdpFilter({ ownExtensions: () => [OWN] });
  filter.fromBrowser(attached("own", `chrome-extension://${OWN}/worker.js`), false);
  filter.fromBrowser(attached("other", `chrome-extension://${OTHER}/index.html`, "page"), false);
  filter.fromBrowser(attached("webui", "chrome://extensions/", "page"), false);

  it("a session on its own extension's target takes any command; another extension's or chrome:// takes none", () => {
    for (const method of ["Runtime.evaluate", "Runtime.addBinding", "Runtime.enable"]) {
      expect(refusedIn(filter, { id: 1, method, params: {}, sessionId: "own" })).toBe(false);
      expect(refusedIn(filter, { id: 1, method, params: {}, sessionId: "other" })).toBe(true);
      expect(refusedIn(filter, { id: 1, method, params: {}, sessionId: "webui" })).toBe(true);
    }
  });

  it("with no own extension, every chrome-extension:// target is refused (the filter as before)", () => {
    const plain = new TenantCdpFilter();
    plain.fromBrowser(attached("own", `chrome-extension://${OWN}/worker.js`), false);
    expect(refusedIn(plain, { id: 1, method: "Runtime.evaluate", params: {}, sessionId: "own" })).toBe(true);
    expect(refusedIn(plain, { id: 2, method: "Target.createTarget", params: { url: `chrome-extension://${OWN}/a.html` } })).toBe(true);
  });

  it("own extension pages may be opened and navigated to; others may not", () => {
    expect(refusedIn(filter, { id: 1, method: "Target.createTarget", params: { url: `chrome-extension://${OWN}/wake.html` } })).toBe(false);
    expect(refusedIn(filter, { id: 2, method: "Page.navigate", params: { url: `chrome-extension://${OWN}/wake.html` }, sessionId: "own" })).toBe(false);
    expect(refusedIn(filter, { id: 3, method: "Target.createTarget", params: { url: `chrome-extension://${OTHER}/index.html` } })).toBe(true);
    expect(refusedIn(filter, { id: 4, method: "Target.createTarget", params: { url: "chrome://settings" } })).toBe(true);
  });

  it("an own extension's target that navigates to chrome:// is no longer driven", () => {
    const f = new TenantCdpFilter({ ownExtensions: () => [OWN] });
    f.fromBrowser(attached("tab", `chrome-extension://${OWN}/page.html`, "page"), false);
    expect(refusedIn(f, { id: 1, method: "Runtime.evaluate", params: {}, sessionId: "tab" })).toBe(false);
    f.fromBrowser(msg({ method: "Target.targetInfoChanged", params: { targetInfo: { targetId: "t-tab", type: "page", url: "chrome://version/" } } }), false);
    expect(refusedIn(f, { id: 2, method: "Runtime.evaluate", params: {}, sessionId: "tab" })).toBe(true);
  });

  it("Extensions.* names only its own ids; loadUnpacked stays refused; getExtensions answers without paths", () => {
    expect(refusedIn(filter, { id: 1, method: "Extensions.uninstall", params: { id: OTHER } })).toBe(true);
    expect(refusedIn(filter, { id: 2, method: "Extensions.setStorageItems", params: { id: OWN, storageArea: "local", values: {} } })).toBe(false);
    expect(refusedIn(filter, { id: 3, method: "Extensions.loadUnpacked", params: { path: "/tmp/x" } })).toBe(true);
    expect(refusedIn(filter, { id: 4, method: "Extensions.getExtensions" })).toBe(false);
    const answer = filter.fromBrowser(msg({ id: 4, result: { extensions: [{ id: OWN, name: "x", version: "1", path: "/srv/data/extensions/k/.run-1", enabled: true }] } }), false);
    expect(JSON.parse(answer!)).toEqual({ id: 4, result: { extensions: [{ id: OWN, name: "x", version: "1", path: "(hidden by svc)", enabled: true }] } });
    // Only the answer to that call is rewritten.
    expect(filter.fromBrowser(msg({ id: 4, result: { extensions: [{ path: "/x" }] } }), false)).toBeUndefined();
  });
});
