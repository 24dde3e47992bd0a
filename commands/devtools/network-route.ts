/**
 * `svc network route|unroute|routes`: the session's routes, kept in its file (store/routes.ts) and applied by its
 * host to every page (host/fetch.ts). The file is written first, then the host asked to reread it (a control request,
 * answered even mid-command); the answer says on how many tabs it took.
 */
import { readFileSync, statSync } from "node:fs";
import {
  ROUTE_LIMITS,
  type SessionRoute,
  ServiceInvalidArgumentError,
  ServiceStateError,
  type StoredSession,
  checkContentType,
  checkHeaders,
  checkRoutePattern,
  checkRouteStatus,
  isCloud,
  routeBodyBytes,
  sessionRouteStore,
  touchSession,
} from "../../src/base.js";
import { askHostFor, savedWording } from "../host/ask.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";
import { resolveSession } from "../core/session-lookup.js";

export interface RouteFlags {
  body?: string;
  status?: string;
  header?: string[];
  contentType?: string;
  abort?: boolean;
}

/** The route `svc network route` stores, every flag checked (one line naming the flag). */
export function parseRoute(pattern: string, flags: RouteFlags): SessionRoute {
  const route: SessionRoute = { pattern: checkRoutePattern(pattern) };
  const responds = flags.body !== undefined || flags.status !== undefined || flags.header?.length || flags.contentType !== undefined;
  if (flags.abort) {
    if (responds) throw new ServiceInvalidArgumentError("invalid --abort: an aborted request gets no --body, --status, --header or --content-type");
    return { ...route, abort: true };
  }
  if (!responds) throw new ServiceInvalidArgumentError("svc network route: give --body, --status, --header or --content-type (a response), or --abort", { hint: "svc network route '**/api/*' --body '{\"ok\":true}'" });
  if (flags.status !== undefined) {
    if (!/^\d{1,3}$/.test(flags.status)) throw new ServiceInvalidArgumentError(`invalid --status: expected an HTTP status from 100 to 599, got ${JSON.stringify(flags.status.slice(0, 20))}`);
    route.status = checkRouteStatus("--status", Number(flags.status));
  }
  if (flags.header?.length) {
    const headers: Record<string, string> = {};
    for (const h of flags.header) {
      const colon = h.indexOf(":");
      if (colon <= 0) throw new ServiceInvalidArgumentError(`invalid --header: expected NAME:VALUE, got ${JSON.stringify(h.slice(0, 60))}`);
      headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    }
    route.headers = checkHeaders("--header", headers);
  }
  if (flags.contentType !== undefined) route.contentType = checkContentType("--content-type", flags.contentType);
  if (flags.body !== undefined) route.body = readBody(flags.body).toString("base64");
  return route;
}

/** `--body TEXT`, or `--body @FILE`: the file's bytes; at most ROUTE_LIMITS.maxBodyBytes either way. */
function readBody(raw: string): Buffer {
  const max = ROUTE_LIMITS.maxBodyBytes;
  if (!raw.startsWith("@")) {
    const body = Buffer.from(raw, "utf8");
    if (body.length > max) throw new ServiceInvalidArgumentError(`invalid --body: larger than ${max} bytes`);
    return body;
  }
  const file = raw.slice(1);
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new ServiceInvalidArgumentError(`invalid --body: ${file} is not a file`);
    if (st.size > max) throw new ServiceInvalidArgumentError(`invalid --body: ${file} is larger than ${max} bytes`);
    const body = readFileSync(file);
    if (body.length > max) throw new ServiceInvalidArgumentError(`invalid --body: ${file} is larger than ${max} bytes`);
    return body;
  } catch (e) {
    if (e instanceof ServiceInvalidArgumentError) throw e;
    throw new ServiceInvalidArgumentError(`invalid --body: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** What a route does, in a few words. */
function describe(r: SessionRoute): string {
  if (r.abort) return "abort (blocked by client)";
  const type = r.contentType ?? Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === "content-type")?.[1];
  const bytes = r.body ? routeBodyBytes(r.body) : 0;
  const extra = Object.keys(r.headers ?? {}).filter((k) => k.toLowerCase() !== "content-type");
  return `${r.status ?? 200}${type ? ` ${type}` : ""}, ${bytes} byte${bytes === 1 ? "" : "s"}${extra.length ? `, headers ${extra.join(", ")}` : ""}`;
}

const shown = (r: SessionRoute) => ({
  pattern: r.pattern,
  matches: r.pattern.includes("*") ? "glob" : "substring",
  ...(r.abort ? { abort: true } : { status: r.status ?? 200, headers: r.headers ?? {}, ...(r.contentType ? { contentType: r.contentType } : {}), bodyBytes: r.body ? routeBodyBytes(r.body) : 0 }),
});

async function localSession(g: GlobalOptions, root: string): Promise<StoredSession> {
  const session = touchSession(await resolveSession(root, g.session), root);
  if (isCloud(session)) throw new ServiceInvalidArgumentError("svc network route applies to a local session; a cloud session's browser is the platform's", { hint: "svc sessions start (local), or --session ID" });
  return session;
}

/** Asks the host to read the routes file again; the tabs it took on. */
async function applyRoutes(root: string, id: string): Promise<{ pages: number; failed: number; error?: string }> {
  const reply = await askHostFor<{ pages: number; failed: number; error?: string }>(root, id, { control: "routes" }, savedWording(id));
  if (reply.failed > 0 && reply.pages === 0) throw new ServiceStateError(`saved for session ${id}, but no tab took it: ${reply.error ?? "unknown error"}`);
  return reply;
}

const tabs = (a: { pages: number; failed: number; error?: string }) => `applied to ${a.pages} tab${a.pages === 1 ? "" : "s"}${a.failed ? `; ${a.failed} failed: ${a.error}` : ""}; later tabs get it too`;

export async function route(g: GlobalOptions, pattern: string, flags: RouteFlags): Promise<void> {
  const out = output(g);
  const next = parseRoute(pattern, flags);
  const root = stateRoot();
  const session = await localSession(g, root);
  const store = sessionRouteStore(session.id, root);
  const routes = store.load().filter((r) => r.pattern !== next.pattern);
  const replaced = routes.length !== store.load().length;
  store.save([...routes, next]);
  const applied = await applyRoutes(root, session.id);
  out.result({ session: session.id, route: shown(next), replaced, applied: { tabs: applied.pages, failed: applied.failed } }, () => [
    `${replaced ? "rerouted" : "routed"} ${next.pattern} → ${describe(next)} for session ${session.id} (${tabs(applied)})`,
  ]);
}

export async function unroute(g: GlobalOptions, pattern: string | undefined): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const session = await localSession(g, root);
  const store = sessionRouteStore(session.id, root);
  const before = store.load();
  const kept = pattern === undefined ? [] : before.filter((r) => r.pattern !== pattern);
  if (pattern !== undefined && kept.length === before.length) {
    throw new ServiceInvalidArgumentError(`invalid pattern: session ${session.id} has no route ${JSON.stringify(pattern.slice(0, 200))}`, { hint: "svc network routes" });
  }
  store.save(kept);
  const applied = await applyRoutes(root, session.id);
  const removed = before.length - kept.length;
  out.result({ session: session.id, removed, routes: kept.length, applied: { tabs: applied.pages, failed: applied.failed } }, () => [
    `removed ${removed} route${removed === 1 ? "" : "s"} of session ${session.id}; ${kept.length} left (${tabs(applied)})`,
  ]);
}

export async function listRoutes(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const session = await localSession(g, root);
  const routes = sessionRouteStore(session.id, root).load();
  out.result({ session: session.id, routes: routes.map(shown) }, () =>
    routes.length ? table([["PATTERN", "MATCHES", "RESPONSE"], ...routes.map((r) => [r.pattern, shown(r).matches, describe(r)])]) : [`session ${session.id} has no routes (svc network route PATTERN --body … | --abort)`],
  );
}
