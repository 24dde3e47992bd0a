/**
 * Helpers for the agent e2e tests: a scripted "model" that solves the fixture site (fixtures/pages/site/)
 * by reading each step's prompt (URL + outline) the way a model would, plus small readers for requests
 * and events. The brain answers one step per request; a test queues it as many times as steps may run.
 */
import type { Page } from "../../src/browser/page.js";
import type { RunEvent } from "../../src/events.js";
import { parseSnapshot, type FakeModel, type FakeReply, type FakeReplyFn, type FakeRequest } from "../support/fake-model.js";
import { refOf } from "../support/models.js";

export interface Step {
  [key: string]: unknown;
  reasoning: string;
  tool: string;
  args: Record<string, unknown>;
}

export const step = (tool: string, args: Record<string, unknown>, reasoning = `use ${tool}`): Step => ({ reasoning, tool, args });

/** The element line with this role and name in a request's outline (undefined when absent). */
export function lineOf(req: FakeRequest, role: string, name: string): { ref: string; value?: string } | undefined {
  const l = parseSnapshot(req.snapshot).find((x) => x.ref && x.role === role && x.name === name);
  return l?.ref ? { ref: l.ref, ...(l.value !== undefined ? { value: l.value } : {}) } : undefined;
}

/** Center of the first element matching a CSS selector, in CSS pixels (the viewport's coordinates). */
export async function centerOf(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = await page.evaluate<{ x: number; y: number; w: number; h: number }>(
    `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; })()`,
  );
  return { x: Math.round(box.x + box.w / 2), y: Math.round(box.y + box.h / 2) };
}

export interface SiteBrainOptions {
  /** The URL of site/index.html (a step on another page first opens it with goto). */
  start: string;
  /** hybrid: click and type by coordinates on the live page. */
  page?: () => Page;
  quantity?: string;
  delivery?: string;
}

/**
 * Solves the site task: search "fern", open Boston Fern, order it with %customer% / %email%, read the
 * order number on the confirmation page and finish with it. With `page`, clicks and typing go through
 * clickAt / typeAt at coordinates measured in the page (as a vision model would read them off the screenshot).
 */
export function siteBrain(o: SiteBrainOptions): FakeReplyFn {
  const quantity = o.quantity ?? "2";
  const delivery = o.delivery ?? "Express";
  const at = async (selector: string) => centerOf(o.page!(), selector);
  return async (req) => {
    const url = req.url ?? "";
    const hybrid = Boolean(o.page);
    if (url.includes("/site/index.html")) {
      if (/plant for "fern"/.test(req.snapshot)) {
        return hybrid ? step("clickAt", await at("#item-fern"), "open Boston Fern") : step("perform", { ref: refOf(req, "link", "Boston Fern"), method: "click", arguments: [] }, "open Boston Fern");
      }
      const box = lineOf(req, "searchbox", "Search plants");
      if (box && box.value !== "fern") {
        return hybrid ? step("typeAt", { ...(await at("#q")), text: "fern", clear: true }, "search") : step("perform", { ref: box.ref, method: "fill", arguments: ["fern"] }, "search");
      }
      return step("keys", { key: "Enter" }, "submit the search");
    }
    if (url.includes("/site/item.html")) {
      return hybrid ? step("clickAt", await at("#order-link"), "order it") : step("perform", { ref: refOf(req, "link", "Order this plant"), method: "click", arguments: [] }, "order it");
    }
    if (url.includes("/site/order.html")) {
      const name = lineOf(req, "textbox", "Your name");
      if (name && !name.value) {
        if (hybrid) return step("typeAt", { ...(await at("#customer")), text: "%customer%" }, "type the name");
        const fields = [
          { ref: name.ref, value: "%customer%" },
          { ref: refOf(req, "textbox", "Email"), value: "%email%" },
          { ref: refOf(req, "spinbutton", "Quantity"), value: quantity },
          { ref: refOf(req, "combobox", "Delivery"), value: delivery },
        ];
        return step("fillForm", { fields }, "fill the order form");
      }
      const email = lineOf(req, "textbox", "Email");
      if (hybrid && email && !email.value) {
        return step("fillForm", { fields: [{ ref: email.ref, value: "%email%" }, { ref: refOf(req, "spinbutton", "Quantity"), value: quantity }, { ref: refOf(req, "combobox", "Delivery"), value: delivery }] }, "the rest of the form");
      }
      return hybrid ? step("clickAt", await at("#place-order"), "place the order") : step("perform", { ref: refOf(req, "button", "Place order"), method: "click", arguments: [] }, "place the order");
    }
    if (url.includes("/site/confirm.html")) {
      const number = /Order number: (GS-\d+)/.exec(req.snapshot)?.[1] ?? "unknown";
      return step("done", { message: `Order ${number} is placed.`, success: true }, "the confirmation shows the order number");
    }
    return step("goto", { url: o.start }, "open the shop");
  };
}

/** Queues `reply` for the next `n` requests. */
export function scriptTimes(fake: FakeModel, reply: FakeReply, n = 30): void {
  fake.script(...Array.from({ length: n }, () => reply));
}

/** The agent's steps from a list, in order (then a failing `done`); every other request (act/extract sub-calls) answered automatically. */
export function scriptSteps(fake: FakeModel, ...list: Step[]): void {
  let i = 0;
  const reply: FakeReply = (req, auto) => (req.operation !== "agent_step" ? { kind: "object", value: auto() } : (list[i++] ?? step("done", { message: "out of script", success: false })));
  scriptTimes(fake, reply, list.length * 3 + 2);
}

/** Events of a run, recorded by a subscriber. */
export function eventLog(): { events: RunEvent[]; listener: (e: RunEvent) => void; types(): string[] } {
  const events: RunEvent[] = [];
  return { events, listener: (e) => void events.push(e), types: () => events.map((e) => e.type) };
}

/** The agent step requests (operation `agent_step`). */
export const stepRequests = (fake: FakeModel): FakeRequest[] => fake.requestsFor("agent_step");
