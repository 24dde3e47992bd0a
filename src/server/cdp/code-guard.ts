/**
 * Code a tenant leaves in a tab to run later must not run in a page tenants may not reach: Chrome carries
 * new-document scripts and breakpoints across navigations, and under load a tab can commit at chrome://extensions
 * before svc stops it. So such code gets a first statement that ends it outside web pages; what no guard can cover
 * (breakpoint conditions, live edit) is refused (docs/isolation.md).
 */

type Params = Record<string, unknown>;

/**
 * True in a document a tenant may run code in (a web page, or a page of its own extensions, whose ids are
 * Chrome's 32 letters a–p); source text, evaluated in the page.
 */
function webDocument(own: readonly string[]): string {
  const ids = JSON.stringify(own.filter((id) => /^[a-p]{32}$/.test(id)));
  return `((l, own) => {
const p = l.protocol;
if (p === "http:" || p === "https:" || p === "data:") return true;
if (p === "chrome-extension:") return own.includes(l.host);
if (p === "blob:") return /^blob:(https?:|null\\/)/.test(l.href);
if (p !== "about:") return false;
const a = l.ancestorOrigins;
for (let i = 0; i < a.length; i++) if (!/^(https?:\\/\\/|null$)/.test(a[i]) && !(a[i].startsWith("chrome-extension://") && own.includes(a[i].slice(19)))) return false;
return true;
})(location, ${ids})`.replace(/\n/g, " ");
}

/** The statement put first in a tenant's code that may run in another page than the one it was sent for. */
export function scriptGuard(own: readonly string[] = []): string {
  return `if (!${webDocument(own)}) throw "svc: a tenant's code runs only in web pages";`;
}

/** A leading "use strict" stays first: after another statement it would no longer be a directive. */
const STRICT = /^(\s*(["'])use strict\2\s*;?)/;

/**
 * A session's guard statement (`own`: its extension ids, asked at each use: known once it started), built
 * again only when those change: every evaluate a tenant sends to a tab takes it.
 */
export function guardOf(own: () => readonly string[]): () => string {
  let key: string | undefined;
  let guard = "";
  return () => {
    const ids = own();
    const now = ids.join(",");
    if (now !== key) [key, guard] = [now, scriptGuard(ids)];
    return guard;
  };
}

/** `source` that ends at once outside web pages (`guard`: the session's statement). */
export function guardScript(source: unknown, guard = scriptGuard()): unknown {
  if (typeof source !== "string") return source;
  const strict = STRICT.exec(source)?.[1] ?? "";
  return `${strict}${guard}${source.slice(strict.length)}`;
}

/** A function's source that runs the guard before its own text is evaluated (Chrome evaluates `(text)`). */
export function guardFunction(text: unknown, guard = scriptGuard()): unknown {
  return typeof text === "string" ? `(() => { ${guard} })(), ${text}` : text;
}

type Rewrites = Map<string, (p: Params) => Params>;

/** The commands whose stored code is guarded, and how (`guard`: the session's, from guardOf). */
export function scriptRewrites(guard: () => string): Rewrites {
  return new Map<string, (p: Params) => Params>([
    ["Page.addScriptToEvaluateOnNewDocument", (p) => ({ ...p, source: guardScript(p.source, guard()) })],
    ["Page.addScriptToEvaluateOnLoad", (p) => ({ ...p, scriptSource: guardScript(p.scriptSource, guard()) })],
  ]);
}

/** Pinned to one document: only by the fields each command reads (Chrome ignores any other it is sent). */
const unique = (p: Params) => typeof p.uniqueContextId === "string";

/** For messages to a tab: its code commands that could be delivered to the tab's next document. */
export function tabRewrites(guard: () => string): Rewrites {
  return new Map<string, (p: Params) => Params>([
    ["Runtime.evaluate", (p) => (unique(p) ? p : { ...p, expression: guardScript(p.expression, guard()) })],
    ["Runtime.compileScript", (p) => ({ ...p, expression: guardScript(p.expression, guard()) })],
    ["Runtime.callFunctionOn", (p) => (unique(p) || typeof p.objectId === "string" ? p : { ...p, functionDeclaration: guardFunction(p.functionDeclaration, guard()) })],
  ]);
}

const CONDITION_REFUSED = "a breakpoint condition runs in whatever page the tab is at when it is hit, Chrome's own pages included: set the breakpoint without one";

/** Why a breakpoint command is refused (a non-empty condition), or undefined. */
export function breakpointRefusal(p: Params): string | undefined {
  return p.condition === undefined || p.condition === "" ? undefined : CONDITION_REFUSED;
}

export const LIVE_EDIT_REFUSED = "live edit of a page's scripts is not relayed: a script id can name another page's script once the tab navigates";

/** The breakpoint commands that take a condition. */
export const BREAKPOINT_COMMANDS = ["Debugger.setBreakpoint", "Debugger.setBreakpointByUrl", "Debugger.setBreakpointOnFunctionCall"] as const;
