/**
 * `svc wait <ref|selector|ms> | --text T | --url PATTERN | --load [state]` with `--timeout MS`
 * (default 30000): returns once the thing is there; a wait that runs out is a TIMEOUT error (exit 7).
 * A ref names an element of the session's last snapshot (refs survive between commands); a selector is
 * any selector svc accepts (CSS, xpath=…, deep `>>`). An element counts once it is visible.
 */
import { ServiceError, ServiceInvalidArgumentError, ServiceTimeoutError } from "../src/base.js";
import { commandSignal } from "./cleanup.js";
import { callOn, PageRefs, resolveTarget } from "../src/internal.js";
import { sessionRefStore, sleep } from "../src/base.js";
import { parseWaitUntil } from "./goto.js";
import { parseTimeout } from "./model.js";
import type { GlobalOptions } from "./output.js";
import { stateRoot, withSession } from "./runtime.js";
import type { WAIT_OPTIONS } from "./registry/page.js";
import type { FlagsOf } from "./registry/types.js";

export type WaitFlags = FlagsOf<typeof WAIT_OPTIONS>;

const DEFAULT_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

type Goal =
  | { kind: "ms"; ms: number }
  | { kind: "element"; selector: string }
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
  const given = [target !== undefined, flags.text !== undefined, flags.url !== undefined, flags.load !== undefined && flags.load !== false].filter(Boolean).length;
  if (given !== 1) throw new ServiceInvalidArgumentError("wait: give exactly one of <ref|selector|ms>, --text, --url, --load", { hint: 'svc wait e3 | svc wait 500 | svc wait --text "Saved"' });
  if (flags.text !== undefined) {
    if (!flags.text) throw new ServiceInvalidArgumentError("--text: the text is empty");
    return { kind: "text", text: flags.text };
  }
  if (flags.url !== undefined) {
    if (!flags.url.trim()) throw new ServiceInvalidArgumentError("--url: the pattern is empty");
    return { kind: "url", pattern: flags.url, test: urlMatcher(flags.url) };
  }
  if (flags.load !== undefined && flags.load !== false) return { kind: "load", state: flags.load === true ? "load" : parseWaitUntil(flags.load)! };
  const t = target!.trim();
  if (!t) throw new ServiceInvalidArgumentError("wait: the target is empty");
  if (/^\d+$/.test(t)) return { kind: "ms", ms: Number(t) };
  return { kind: "element", selector: t };
}

function describe(goal: Goal): string {
  switch (goal.kind) {
    case "ms":
      return `${goal.ms} ms`;
    case "element":
      return `${goal.selector} visible`;
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
        check = async () => {
          try {
            const el = await resolveTarget(page, goal.selector, refs);
            return await callOn<boolean>(el, function (this: Element) {
              const r = this.getBoundingClientRect();
              return r.width > 0 && r.height > 0 && getComputedStyle(this).visibility !== "hidden";
            });
          } catch (e) {
            // Not there yet: keep waiting. A bad selector or a stale ref will not fix itself.
            if ((e as { code?: unknown }).code === "ELEMENT_NOT_FOUND") return false;
            throw e;
          }
        };
        break;
      }
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
