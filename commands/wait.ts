/**
 * `svc wait <ref|selector|ms> | --text | --url | --load | --fn` (docs/cli.md): returns once the thing is there;
 * running out is a TIMEOUT (exit 7). A ref names an element of the session's last snapshot; an element counts once
 * visible, or per `--state`. `--fn` is evaluated every 100 ms until truthy; one that throws fails the wait.
 */
import { ServiceError, ServiceEvalError, ServiceInvalidArgumentError, ServiceTimeoutError } from "../src/base.js";
import { commandSignal } from "./cleanup.js";
import { callOn, PageRefs, resolveTarget } from "../src/internal.js";
import { sessionRefStore, sleep } from "../src/base.js";
import { parseTimeout } from "./model.js";
import type { GlobalOptions } from "./output.js";
import { stateRoot, withSession } from "./runtime.js";
import type { WAIT_OPTIONS } from "./registry/page.js";
import type { FlagsOf } from "./registry/types.js";

export type WaitFlags = FlagsOf<typeof WAIT_OPTIONS>;

const DEFAULT_TIMEOUT_MS = 30_000;

const WAIT_UNTIL = ["load", "domcontentloaded", "networkidle"] as const;

/** `--load [state]`'s state: one of the lifecycle states a navigation waits for. */
function parseWaitUntil(raw: string): (typeof WAIT_UNTIL)[number] {
  const v = WAIT_UNTIL.find((w) => w === raw.trim().toLowerCase());
  if (!v) throw new ServiceInvalidArgumentError(`--load must be one of ${WAIT_UNTIL.join(", ")}, got "${raw}"`);
  return v;
}
/** The longest `--fn` expression accepted. */
const MAX_FN_CHARS = 10_000;

type ElementState = "visible" | "hidden" | "attached" | "detached";
const POLL_MS = 100;

type Goal =
  | { kind: "ms"; ms: number }
  | { kind: "element"; selector: string; state: ElementState }
  | { kind: "fn"; js: string }
  | { kind: "text"; text: string }
  | { kind: "url"; pattern: string; test: (url: string) => boolean }
  | { kind: "load"; state: "load" | "domcontentloaded" | "networkidle" };

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

function goalOf(target: string | undefined, flags: WaitFlags): Goal {
  const given = [target !== undefined, flags.text !== undefined, flags.url !== undefined, flags.load !== undefined && flags.load !== false, flags.fn !== undefined].filter(Boolean).length;
  if (given !== 1) throw new ServiceInvalidArgumentError("wait: give exactly one of <ref|selector|ms>, --text, --url, --load, --fn", { hint: 'svc wait e3 | svc wait 500 | svc wait --text "Saved"' });
  if (flags.state !== undefined && (target === undefined || /^\d+$/.test(target.trim()))) throw new ServiceInvalidArgumentError("--state applies to a ref or selector", { hint: 'svc wait "#spinner" --state hidden' });
  if (flags.fn !== undefined) {
    if (!flags.fn.trim()) throw new ServiceInvalidArgumentError("--fn: the expression is empty");
    if (flags.fn.length > MAX_FN_CHARS) throw new ServiceInvalidArgumentError(`--fn: the expression is longer than ${MAX_FN_CHARS} characters`);
    return { kind: "fn", js: flags.fn };
  }
  if (flags.text !== undefined) {
    if (!flags.text) throw new ServiceInvalidArgumentError("--text: the text is empty");
    return { kind: "text", text: flags.text };
  }
  if (flags.url !== undefined) {
    if (!flags.url.trim()) throw new ServiceInvalidArgumentError("--url: the pattern is empty");
    return { kind: "url", pattern: flags.url, test: urlMatcher(flags.url) };
  }
  if (flags.load !== undefined && flags.load !== false) return { kind: "load", state: flags.load === true ? "load" : parseWaitUntil(flags.load) };
  const t = target!.trim();
  if (!t) throw new ServiceInvalidArgumentError("wait: the target is empty");
  if (/^\d+$/.test(t)) return { kind: "ms", ms: Number(t) };
  return { kind: "element", selector: t, state: flags.state ?? "visible" };
}

function describe(goal: Goal): string {
  switch (goal.kind) {
    case "ms":
      return `${goal.ms} ms`;
    case "element":
      return `${goal.selector} ${goal.state}`;
    case "fn":
      return `${goal.js.length > 60 ? `${goal.js.slice(0, 57)}...` : goal.js} truthy`;
    case "text":
      return `text "${goal.text}"`;
    case "url":
      return `URL matching ${goal.pattern}`;
    case "load":
      return goal.state;
  }
}

export async function wait(g: GlobalOptions, target: string | undefined, flags: WaitFlags): Promise<void> {
  const goal = goalOf(target, flags);
  const timeout = parseTimeout(flags.timeout) ?? DEFAULT_TIMEOUT_MS;
  await withSession(g, async ({ svc, out, session }) => {
    const page = svc.page;
    const started = Date.now();
    const deadline = started + timeout;
    let check: () => Promise<boolean>;
    switch (goal.kind) {
      case "ms":
        // A timer may fire a fraction of a millisecond before the wall clock shows the time passed: the
        // reported wait is never shorter than the one asked for.
        while (Date.now() - started < goal.ms && !commandSignal().aborted) await sleep(Math.min(POLL_MS, goal.ms - (Date.now() - started)));
        check = () => Promise.resolve(true);
        break;
      case "element": {
        const stored = session ? sessionRefStore(session.id, stateRoot()).load(page.targetId) : undefined;
        const refs = stored === undefined ? undefined : PageRefs.restore(stored, `ref map of page ${page.targetId}`);
        const gone = goal.state === "hidden" || goal.state === "detached";
        check = async () => {
          try {
            const el = await resolveTarget(page, goal.selector, refs);
            if (goal.state === "attached") return true;
            if (goal.state === "detached") return false;
            const visible = await callOn<boolean>(el, function (this: Node) {
              const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement;
              if (!e?.isConnected) return false;
              const r = e.getBoundingClientRect();
              return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
            });
            return goal.state === "visible" ? visible : !visible;
          } catch (e) {
            // Not there yet (or gone, which is what hidden and detached wait for). A bad selector will not fix itself;
            // a ref whose element was removed is gone.
            const code = (e as { code?: unknown }).code;
            if (code === "ELEMENT_NOT_FOUND" || code === "XPATH_UNRESOLVED") return gone;
            if (code === "STALE_REF" && gone && /removed from the page|is gone|navigated/.test((e as Error).message)) return true;
            throw e;
          }
        };
        break;
      }
      case "fn":
        check = async () => {
          // A script error fails the wait at once (it will not fix itself); a page between documents is not yet.
          const value = await page.evaluate<boolean>(`(async () => !!(await (${goal.js}\n)))()`).catch((e: unknown) => {
            if (e instanceof ServiceEvalError) throw new ServiceEvalError(`--fn: ${e.message}`);
            return false;
          });
          return value === true;
        };
        break;
      case "text":
        check = async () => (await page.evaluate<boolean>((t: string) => (document.body?.innerText ?? "").includes(t), goal.text).catch(() => false)) === true;
        break;
      case "url":
        check = () => Promise.resolve(goal.test(page.url()));
        break;
      case "load":
        check = async () => {
          if (goal.state === "networkidle") {
            await page.settle(Math.max(0, deadline - Date.now()));
            return true;
          }
          const ready = await page.evaluate<string>("document.readyState").catch(() => "loading");
          return goal.state === "load" ? ready === "complete" : ready !== "loading";
        };
        break;
    }
    const interrupted = commandSignal();
    for (;;) {
      if (interrupted.aborted) throw new ServiceError("wait: interrupted");
      if (await check()) break;
      if (Date.now() >= deadline) throw new ServiceTimeoutError(`wait: no ${describe(goal)} within ${timeout} ms`, { hint: "raise --timeout, or check the page with `svc extract`" });
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
    const ms = Date.now() - started;
    out.result({ session: session?.id, waited: goal.kind, for: describe(goal), ms, url: page.url() }, () => `ok: ${describe(goal)} (${ms} ms)`);
  });
}
