/**
 * Waiting for the page: an element (visible, hidden, attached, detached), text, a URL, a load state, a JavaScript
 * condition, or some time. The condition is read every 100 ms under one cancellation (the caller's stop and the
 * timeout): past the timeout the polling stops, a read in flight is dropped, and the call is a TIMEOUT.
 */
import { z } from "zod";
import { ServiceEvalError, ServiceTimeoutError } from "../errors.js";
import type { Page } from "../index.js";
import { abortable, Cancellation, sleep } from "../util/abort.js";
import { type Capability, type CapabilityContext, capability, readOnly, type Report } from "./declare.js";
import { TAB, TARGET, TIMEOUT } from "./element.js";

const DEFAULT_TIMEOUT_MS = 30_000;
const POLL_MS = 100;
const LOAD_STATES = ["load", "domcontentloaded", "networkidle"] as const;
const ELEMENT_STATES = ["visible", "hidden", "attached", "detached"] as const;
/** The properties that each name one thing to wait for: exactly one is given. */
const GOALS = ["target", "time", "text", "url", "load", "fn"] as const;

type Goal =
  | { kind: "ms"; ms: number }
  | { kind: "element"; selector: string; state: (typeof ELEMENT_STATES)[number] }
  | { kind: "fn"; js: string }
  | { kind: "text"; text: string }
  | { kind: "url"; pattern: string }
  | { kind: "load"; state: (typeof LOAD_STATES)[number] };

/** `**` any characters, `*` any but `/`; a pattern without `*` matches any URL containing it. */
function urlMatcher(pattern: string): (url: string) => boolean {
  if (!pattern.includes("*")) return (url) => url.includes(pattern);
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  const re = new RegExp(`^${source}$`);
  return (url) => re.test(url);
}

function describe(goal: Goal): string {
  if (goal.kind === "ms") return `${goal.ms} ms`;
  if (goal.kind === "element") return `${goal.selector} ${goal.state}`;
  if (goal.kind === "fn") return `${goal.js.length > 60 ? `${goal.js.slice(0, 57)}...` : goal.js} truthy`;
  if (goal.kind === "text") return `text "${goal.text}"`;
  if (goal.kind === "url") return `URL matching ${goal.pattern}`;
  return goal.state;
}

/** In the page: is the element (a text node: its parent) connected, with a box, and not visibility: hidden? */
function pageVisible(this: Node): boolean {
  const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement;
  if (!e?.isConnected) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
}

/** Whether the element is in the state wanted now; an element not there (yet, or any more) is what hidden and detached wait for. */
async function elementIs(ctx: CapabilityContext, page: Page, goal: Extract<Goal, { kind: "element" }>): Promise<boolean> {
  const gone = goal.state === "hidden" || goal.state === "detached";
  try {
    const el = await ctx.resolve(goal.selector, page);
    if (goal.state === "attached") return true;
    if (goal.state === "detached") return false;
    const { callOn } = await import("../internal.js");
    const visible = await callOn<boolean>(el, pageVisible);
    return goal.state === "visible" ? visible : !visible;
  } catch (e) {
    // A bad selector will not fix itself; a ref whose element was removed is gone.
    const code = (e as { code?: unknown }).code;
    if (code === "ELEMENT_NOT_FOUND" || code === "XPATH_UNRESOLVED") return gone;
    if (code === "STALE_REF" && gone && /removed from the page|is gone|navigated/.test((e as Error).message)) return true;
    throw e;
  }
}

/** One look at the page: is the goal met? */
async function met(ctx: CapabilityContext, page: Page, goal: Exclude<Goal, { kind: "ms" }>, signal: AbortSignal, deadline: number): Promise<boolean> {
  switch (goal.kind) {
    case "element":
      return elementIs(ctx, page, goal);
    case "fn":
      // A script error fails the wait at once (it will not fix itself); a page between documents is not there yet.
      return (
        (await page.evaluate<boolean>(`(async () => !!(await (${goal.js}\n)))()`).catch((e: unknown) => {
          if (e instanceof ServiceEvalError) throw new ServiceEvalError(`${ctx.spell("fn")}: ${e.message}`);
          return false;
        })) === true
      );
    case "text":
      return (await page.evaluate<boolean>((t: string) => (document.body?.innerText ?? "").includes(t), goal.text).catch(() => false)) === true;
    case "url":
      return urlMatcher(goal.pattern)(page.url());
    case "load":
      if (goal.state === "networkidle") {
        // settle() gives up quietly at its bound: idle is what the page's requests say afterwards.
        await page.settle(Math.max(0, deadline - Date.now()), signal);
        return page.network.busy() === 0;
      }
      {
        const ready = await page.evaluate<string>("document.readyState").catch(() => "loading");
        return goal.state === "load" ? ready === "complete" : ready !== "loading";
      }
  }
}

/** `ms` of wall clock, never less (a timer may fire a fraction early), stopped by the caller. */
async function waitTime(ms: number, signal: AbortSignal): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) await sleep(ms - (Date.now() - started), signal, "wait");
  return Date.now() - started;
}

export const wait = capability({
  name: "wait",
  description: "Wait for an element (visible, hidden…), text, a URL, a load state, a JS condition or some time",
  input: {
    target: TARGET.optional().describe("ref or selector of the element to wait for"),
    state: z.enum(ELEMENT_STATES).optional().describe("with target: wait until it is visible (default), hidden, attached or detached"),
    text: z.string().min(1).max(10_000).optional().describe("wait until the page's text contains this"),
    url: z.string().regex(/\S/, "is blank").max(10_000).optional().describe("wait until the URL matches (* any but /, ** anything; no * means contains)"),
    load: z.union([z.literal(true), z.enum(LOAD_STATES)]).optional().describe("wait until the page reached load (true or load), domcontentloaded or networkidle"),
    fn: z.string().regex(/\S/, "the expression is empty").max(10_000).optional().describe("wait until this JavaScript expression is truthy in the page (a promise is awaited)"),
    time: z.number().int().min(0).max(600_000).optional().describe("wait this many milliseconds"),
    timeout: TIMEOUT,
    tab: TAB,
  },
  mcp: { cap: "core", annotations: readOnly("Wait") },
  cli: {
    verb: "wait",
    args: "[target]",
    usage: "<ref|selector> [--state visible|hidden|attached|detached] | <ms> | --text T | --url PATTERN | --load [state] | --fn JS | --time MS",
    // A number alone is milliseconds to wait (`svc wait 500`), anything else the element's ref or selector.
    positional: (args) => (args[0] === undefined ? {} : /^\d+$/.test(args[0].trim()) ? { time: Number(args[0].trim()) } : { target: args[0] }),
    fills: ["target"],
    description:
      "wait until an element (a ref from the last snapshot, or a selector) is visible (or --state hidden, attached, detached), some time passes, text appears, the URL matches, the page loads or a JS expression is truthy; a wait that runs out exits 7 (TIMEOUT)",
    examples: ["svc wait e4", "svc wait 500", 'svc wait --text "Order placed" --timeout 10000', 'svc wait "#spinner" --state hidden', 'svc wait --fn "window.appReady === true"'],
    hosted: true,
  },
  check: (i, spell) => {
    if (GOALS.filter((k) => i[k] !== undefined).length !== 1) return `give exactly one of ${GOALS.map(spell).join(", ")}`;
    if (i.state !== undefined && i.target === undefined) return `${spell("state")} applies to a ref or selector`;
    return undefined;
  },
  run: async (ctx, i): Promise<Report> => {
    const page = await ctx.page(i.tab);
    if (i.time !== undefined) {
      const ms = await waitTime(i.time, ctx.signal);
      return { kind: "report", text: `waited ${i.time} ms`, data: { waited: "ms", for: `${i.time} ms`, ms, url: page.url() } };
    }
    const goal: Exclude<Goal, { kind: "ms" }> =
      i.target !== undefined ? { kind: "element", selector: i.target.trim(), state: i.state ?? "visible" }
      : i.fn !== undefined ? { kind: "fn", js: i.fn }
      : i.text !== undefined ? { kind: "text", text: i.text }
      : i.url !== undefined ? { kind: "url", pattern: i.url }
      : { kind: "load", state: i.load === true || i.load === undefined ? "load" : i.load };
    const timeout = i.timeout ?? DEFAULT_TIMEOUT_MS;
    const started = Date.now();
    const call = new Cancellation({ signal: ctx.signal, timeout, timeoutError: () => new ServiceTimeoutError(`wait: no ${describe(goal)} within ${timeout} ms`, { hint: "raise the timeout, or look at the page (snapshot)" }) });
    try {
      while (!(await abortable(met(ctx, page, goal, call.signal, call.deadline!), call.signal))) await sleep(POLL_MS, call.signal);
    } finally {
      call.dispose();
    }
    const ms = Date.now() - started;
    return { kind: "report", text: `ok: ${describe(goal)} (${ms} ms)`, data: { waited: goal.kind, for: describe(goal), ms, url: page.url() }, pageChanged: true };
  },
});

export const WAIT_CAPABILITIES: readonly Capability[] = [wait] as readonly Capability[];
