/**
 * The tenant CDP filter decides by the target a message addresses: sessions are learnt from attach answers as well as
 * events, a session never seen attached is refused, a page socket's messages address its page, and svc's knowledge of
 * each target (a TargetPlaces the test sets, as target-watch.ts would) is asked for every message.
 */
import { describe, expect, it } from "vitest";
import { type ClientVerdict, TenantCdpFilter } from "../../src/server/cdp/filter.js";
import type { TargetPlaces } from "../../src/server/features/target-watch.js";
import { openPlaces } from "../support/places.js";

const msg = (m: object) => Buffer.from(JSON.stringify(m));
const send = (f: TenantCdpFilter, m: object): ClientVerdict => f.fromClient(msg(m), false);
const refused = (v: ClientVerdict) => "reply" in v;

/** Where each target is, as svc's watch would say; unknown ids are not known. */
function places(where: Record<string, string | undefined>): TargetPlaces & { where: Record<string, string | undefined> } {
  return {
    ...openPlaces(),
    where,
    refusal: (id) => (id in where ? where[id] : "svc has not seen this target"),
    known: (id) => id in where,
  };
}

describe("TenantCdpFilter and the target each message addresses", () => {
  it("learns a session from the answer to Target.attachToTarget (no discovery), then follows svc's knowledge of its target", () => {
    const p = places({ tab: undefined });
    const f = new TenantCdpFilter({ places: p });
    expect(refused(send(f, { id: 7, method: "Target.attachToTarget", params: { targetId: "tab", flatten: true } }))).toBe(false);
    f.fromBrowser(msg({ id: 7, result: { sessionId: "S" } }), false);
    expect(refused(send(f, { id: 8, method: "Runtime.evaluate", params: { expression: "1" }, sessionId: "S" }))).toBe(false);
    // The tab moves to chrome://extensions: svc's watch says so, the client was told nothing.
    p.where.tab = "this tab started navigating to chrome://extensions/";
    const v = send(f, { id: 9, method: "Runtime.evaluate", params: { expression: "1" }, sessionId: "S" });
    expect(JSON.parse((v as { reply: string }).reply)).toMatchObject({ id: 9, sessionId: "S", error: { message: expect.stringMatching(/refused by svc: this tab started navigating to chrome:\/\/extensions/) } });
    // A paused target may still be let run.
    expect(refused(send(f, { id: 10, method: "Runtime.runIfWaitingForDebugger", sessionId: "S" }))).toBe(false);
  });

  it("a tab's message waits until svc has read what Chrome said of the tab before it, then is decided", async () => {
    const p = places({ tab: undefined });
    let catchUp = () => {};
    // svc's own reading lags: the tab's navigation to chrome://extensions is among what it has not read yet.
    p.caughtUp = () => new Promise<void>((resolve) => (catchUp = () => ((p.where.tab = "this tab started navigating to chrome://extensions/"), resolve())));
    const f = new TenantCdpFilter({ places: p });
    send(f, { id: 1, method: "Target.attachToTarget", params: { targetId: "tab", flatten: true } });
    f.fromBrowser(msg({ id: 1, result: { sessionId: "S" } }), false);
    const v = send(f, { id: 2, method: "Runtime.evaluate", params: { expression: "1" }, sessionId: "S" });
    expect("later" in v).toBe(true);
    catchUp();
    const decided = await (v as { later: Promise<ClientVerdict> }).later;
    expect(JSON.parse((decided as { reply: string }).reply)).toMatchObject({ id: 2, error: { message: expect.stringMatching(/refused by svc: this tab started navigating to chrome:\/\/extensions/) } });
  });

  it("refuses a session it never saw attached", () => {
    const f = new TenantCdpFilter({ places: places({}) });
    expect(refused(send(f, { id: 1, method: "Runtime.evaluate", params: {}, sessionId: "guessed" }))).toBe(true);
  });

  it("a browser-level session (attachToBrowserTarget) stays browser-level", () => {
    const f = new TenantCdpFilter({ places: places({}) });
    send(f, { id: 1, method: "Target.attachToBrowserTarget" });
    f.fromBrowser(msg({ id: 1, result: { sessionId: "B" } }), false);
    expect(refused(send(f, { id: 2, method: "Target.getTargets", sessionId: "B" }))).toBe(false);
    expect(refused(send(f, { id: 3, method: "SystemInfo.getInfo", sessionId: "B" }))).toBe(true);
  });

  it("a page socket's messages address its page", () => {
    const p = places({ page: undefined });
    const f = new TenantCdpFilter({ places: p, pageTarget: "page" });
    expect(refused(send(f, { id: 1, method: "Runtime.evaluate", params: {} }))).toBe(false);
    p.where.page = "this tab is at chrome://version/";
    expect(refused(send(f, { id: 2, method: "Runtime.evaluate", params: {} }))).toBe(true);
  });

  it("a message to a target svc has not heard of waits, then is refused if it stays unknown", async () => {
    const f = new TenantCdpFilter({ places: places({}) });
    f.fromBrowser(msg({ method: "Target.attachedToTarget", params: { sessionId: "N", targetInfo: { targetId: "new", type: "page", url: "about:blank" } } }), false);
    const v = send(f, { id: 1, method: "Runtime.evaluate", params: {}, sessionId: "N" });
    expect("later" in v).toBe(true);
    expect(refused(await (v as { later: Promise<ClientVerdict> }).later)).toBe(true);
  });

  it("SystemInfo.getInfo is refused (its answer holds the command line)", () => {
    expect(refused(send(new TenantCdpFilter(), { id: 1, method: "SystemInfo.getInfo" }))).toBe(true);
  });
});
