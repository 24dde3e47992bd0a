/**
 * A CLI session's network routes (`svc network route`): `<state>/sessions/<id>.routes` (0600, atomic), applied by the
 * host (commands/host/fetch.ts). The file is the one truth: a command writes it and asks the host to reread it. Every
 * route is checked on write and on read (a hand-edited file). Pattern syntax: docs/cli.md.
 */
import { join } from "node:path";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { ROUTE_LIMITS } from "../util/route-limits.js";
import { checkHeaders } from "./emulation.js";
import { checkId, ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { sessionsDir } from "./session-records.js";

/** One route: its pattern and what a matching request gets (a failure, or a response svc makes up). */
export interface SessionRoute {
  pattern: string;
  /** The request fails as blocked by the client (the page sees a network error). */
  abort?: true;
  /** The response's status (default 200). */
  status?: number;
  headers?: Record<string, string>;
  contentType?: string;
  /** The response's body, base64. */
  body?: string;
}

export { ROUTE_LIMITS };

export function routesPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.routes`);
}

const bad = (field: string, why: string) => new ServiceInvalidArgumentError(`invalid ${field}: ${why}`);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The regular expression of a glob (the whole URL must match). */
function globRegex(glob: string): RegExp {
  let out = "";
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      out += ".*";
      i++;
    } else if (c === "*") out += "[^/]*";
    else if (c === "{" && !inBraces) {
      inBraces = true;
      out += "(?:";
    } else if (c === "}" && inBraces) {
      inBraces = false;
      out += ")";
    } else if (c === "," && inBraces) out += "|";
    else out += escapeRegex(c);
  }
  if (inBraces) throw bad("pattern", `unclosed { in ${JSON.stringify(glob.slice(0, 80))}`);
  return new RegExp(`^${out}$`);
}

export const isGlob = (pattern: string): boolean => pattern.includes("*");

/** Whether a request URL is the route's (a glob's whole URL, or a substring). */
export function routeMatcher(pattern: string): (url: string) => boolean {
  if (!isGlob(pattern)) return (url) => url.includes(pattern);
  const re = globRegex(pattern);
  return (url) => re.test(url);
}

/**
 * The Fetch domain's urlPattern that pauses at least every request the route matches (Chrome's `*` crosses `/`,
 * so a glob's pattern there is wider; the host matches exactly once paused). Chrome's escape is `\`.
 */
export function fetchUrlPattern(pattern: string): string {
  const escaped = (s: string) => s.replace(/[\\?]/g, "\\$&");
  if (!isGlob(pattern)) return `*${escaped(pattern)}*`;
  return escaped(pattern).replace(/\{[^}]*\}/g, "*").replace(/\*+/g, "*");
}

export function checkPattern(v: unknown): string {
  if (typeof v !== "string" || !v.trim() || v.length > ROUTE_LIMITS.maxPattern || /[\s\0]/.test(v)) {
    throw bad("pattern", `expected a URL glob (**/api/*) or a URL substring, at most ${ROUTE_LIMITS.maxPattern} characters without spaces`);
  }
  if (isGlob(v)) globRegex(v);
  return v;
}

export function checkStatus(field: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 100 || v > 599) throw bad(field, `expected an HTTP status from 100 to 599, got ${JSON.stringify(v)}`);
  return v;
}

export function checkContentType(field: string, v: unknown): string {
  if (typeof v !== "string" || !v.trim() || v.length > ROUTE_LIMITS.maxContentType || /[\r\n\0]/.test(v)) throw bad(field, `expected one line of at most ${ROUTE_LIMITS.maxContentType} characters`);
  return v;
}

/** The byte length of a base64 body. */
export function bodyBytes(base64: string): number {
  return Buffer.byteLength(base64, "base64");
}

function checkRoute(v: unknown, i: number): SessionRoute {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw bad(`route ${i + 1}`, "expected an object");
  const o = v as Record<string, unknown>;
  const known = ["pattern", "abort", "status", "headers", "contentType", "body"];
  const unknown = Object.keys(o).find((k) => !known.includes(k));
  if (unknown !== undefined) throw bad(`route ${i + 1}`, `unknown field ${JSON.stringify(unknown.slice(0, 40))}`);
  const out: SessionRoute = { pattern: checkPattern(o.pattern) };
  if (o.abort !== undefined) {
    if (o.abort !== true) throw bad("abort", "expected true");
    if (["status", "headers", "contentType", "body"].some((k) => o[k] !== undefined)) throw bad("abort", "an aborted request gets no status, headers or body");
    out.abort = true;
    return out;
  }
  if (o.status !== undefined) out.status = checkStatus("status", o.status);
  if (o.headers !== undefined) out.headers = checkHeaders("header", o.headers);
  if (o.contentType !== undefined) out.contentType = checkContentType("content-type", o.contentType);
  if (o.body !== undefined) {
    if (typeof o.body !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(o.body)) throw bad("body", "expected base64");
    if (bodyBytes(o.body) > ROUTE_LIMITS.maxBodyBytes) throw bad("body", `larger than ${ROUTE_LIMITS.maxBodyBytes} bytes`);
    out.body = o.body;
  }
  return out;
}

/** Checks a session's routes (unknown fields refused, bounds); throws an INVALID_ARGUMENT naming the field. */
export function checkRoutes(v: unknown): SessionRoute[] {
  if (!Array.isArray(v)) throw bad("routes", "expected a list");
  if (v.length > ROUTE_LIMITS.maxRoutes) throw bad("routes", `at most ${ROUTE_LIMITS.maxRoutes} routes per session (svc network unroute PATTERN)`);
  const routes = v.map(checkRoute);
  const total = routes.reduce((n, r) => n + (r.body ? bodyBytes(r.body) : 0), 0);
  if (total > ROUTE_LIMITS.maxTotalBodyBytes) throw bad("body", `the session's routes' bodies total more than ${ROUTE_LIMITS.maxTotalBodyBytes} bytes`);
  if (new Set(routes.map((r) => r.pattern)).size !== routes.length) throw bad("routes", "two routes have the same pattern");
  return routes;
}

/** The session's routes file: read (checked) and written; an empty list removes it. */
export function sessionRouteStore(id: string, root: string = resolveStateDir()): { load(): SessionRoute[]; save(routes: SessionRoute[]): void } {
  const path = routesPath(root, id);
  const maxFile = ROUTE_LIMITS.maxTotalBodyBytes * 2 + 1_000_000;
  return {
    load() {
      const text = readIfExists(path);
      if (text === undefined) return [];
      if (text.length > maxFile) return corrupt(path, `larger than ${maxFile} bytes`);
      try {
        return checkRoutes((JSON.parse(text) as { routes?: unknown }).routes);
      } catch (e) {
        return corrupt(path, (e as Error).message);
      }
    },
    save(routes) {
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify({ routes: checkRoutes(routes) })}\n`, 0o600);
    },
  };
}

function corrupt(path: string, why: string): never {
  throw new ServiceStateError(`corrupt routes file ${path}: ${why}`, { hint: "svc network unroute, or delete the file" });
}
