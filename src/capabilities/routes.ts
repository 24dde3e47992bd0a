/**
 * The network routes: requests of every tab (later tabs too) whose URL matches a pattern are answered with a made-up
 * response or failed, until unrouted. Each door keeps its routes its own way (`ctx.routes()`: the CLI session's file,
 * applied by its host; MCP's browser); the checks, the whole list's bounds and the reports are here.
 */
import { z } from "zod";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { ROUTE_LIMITS } from "../util/route-limits.js";
import { type Capability, capability, moves, readOnly, type Report, type RoutesDoor, type Spell } from "./declare.js";
import type { SessionRoute } from "../internal.js";

const STATUS = "expected an HTTP status from 100 to 599";
/** What answers a request (abort goes alone). */
const RESPONSE = ["body", "status", "headers", "contentType"] as const;

const PATTERN = z
  .string()
  .min(1)
  .max(ROUTE_LIMITS.maxPattern)
  .describe("a glob over the whole URL when it has * (**/api/*: ** any characters, * within a path segment), else a part of the URL (/api/data)");

type RouteInput = { pattern: string; body?: string | undefined; status?: number | undefined; headers?: Record<string, string> | undefined; contentType?: string | undefined; abort?: boolean | undefined };

/** The route the input asks for, every property checked by the store's rules (the body a string, or the CLI's file's bytes). */
async function routeOf(i: RouteInput, spell: Spell): Promise<SessionRoute> {
  const { checkContentType, checkHeaders, checkRoutePattern } = await import("../internal.js");
  const route: SessionRoute = { pattern: checkRoutePattern(i.pattern) };
  if (i.abort) return { ...route, abort: true };
  if (i.status !== undefined) route.status = i.status;
  if (i.headers !== undefined) route.headers = checkHeaders(spell("headers"), i.headers);
  if (i.contentType !== undefined) route.contentType = checkContentType(spell("contentType"), i.contentType);
  if (i.body !== undefined) {
    // The CLI door made `@FILE` the file's bytes (CliDoor.files); a text is sent as UTF-8.
    const body = i.body as string | Buffer;
    // Bounded already: a text by the input's schema, a file's bytes by CliDoor.files.
    route.body = (typeof body === "string" ? Buffer.from(body, "utf8") : body).toString("base64");
  }
  return route;
}

const matches = (pattern: string) => (pattern.includes("*") ? "glob" : "substring");

/** What a route does, in a few words. */
async function describeRoute(r: SessionRoute): Promise<string> {
  if (r.abort) return "abort (blocked by client)";
  const { routeBodyBytes } = await import("../internal.js");
  const type = r.contentType ?? Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === "content-type")?.[1];
  const extra = Object.keys(r.headers ?? {}).filter((k) => k.toLowerCase() !== "content-type");
  return `${r.status ?? 200}${type ? ` ${type}` : ""}, ${r.body ? routeBodyBytes(r.body) : 0} byte body${extra.length ? `, headers ${extra.join(", ")}` : ""}`;
}

/** A route as `--json` shows it. */
async function shown(r: SessionRoute) {
  const { routeBodyBytes } = await import("../internal.js");
  return {
    pattern: r.pattern,
    matches: matches(r.pattern),
    ...(r.abort ? { abort: true } : { status: r.status ?? 200, headers: r.headers ?? {}, ...(r.contentType ? { contentType: r.contentType } : {}), bodyBytes: r.body ? routeBodyBytes(r.body) : 0 }),
  };
}

/** The door's routes set to `next` (checked as a whole: count, total bytes) on every tab; refused when no tab took them. */
async function apply(door: RoutesDoor, next: SessionRoute[]) {
  const { checkRoutes } = await import("../internal.js");
  const applied = await door.set(checkRoutes(next));
  if (applied.failed > 0 && applied.pages === 0) throw new ServiceStateError(`saved for ${door.scope}, but no tab took it: ${applied.error ?? "unknown error"}`);
  return applied;
}

const tabs = (a: { pages: number; failed: number; error?: string }) => `${a.pages} tab${a.pages === 1 ? "" : "s"}${a.failed ? ` (${a.failed} failed: ${a.error})` : ""}`;

/** The routes after a change, one a line. */
async function listed(routes: readonly SessionRoute[]): Promise<string> {
  if (!routes.length) return "  (none)";
  return (await Promise.all(routes.map(async (r) => `  ${r.pattern} → ${await describeRoute(r)}`))).join("\n");
}

export const route = capability({
  name: "route",
  description: "Answer or fail the requests whose URL matches a pattern, in every tab, until unrouted",
  input: {
    pattern: PATTERN,
    body: z
      .string()
      .refine((s) => Buffer.byteLength(s, "utf8") <= ROUTE_LIMITS.maxBodyBytes, { error: `larger than ${ROUTE_LIMITS.maxBodyBytes} bytes of UTF-8` })
      .optional()
      .describe(`the response's body: text (a JSON body is served as application/json), or on the CLI @FILE for a file's bytes (at most ${ROUTE_LIMITS.maxBodyBytes} bytes)`),
    status: z.number({ error: STATUS }).int({ error: STATUS }).min(100, { error: STATUS }).max(599, { error: STATUS }).optional().describe("the response's status (default 200)"),
    headers: z.record(z.string(), z.string()).optional().describe("more response headers (on the CLI: --header NAME:VALUE, repeatable)"),
    contentType: z.string().min(1).max(ROUTE_LIMITS.maxContentType).optional().describe("the response's Content-Type (default: application/json for a JSON body, else text/plain)"),
    abort: z.boolean().optional().describe("fail the request instead (the page sees a network error, blocked by client)"),
  },
  mcp: { cap: "network", annotations: moves("Mock requests", true) },
  cli: {
    verb: "network route",
    args: "<pattern>",
    usage: "PATTERN [--body TEXT|@FILE] [--status N] [--header K:V ...] [--content-type T] | PATTERN --abort",
    description:
      "answer the requests of every tab of the session (later tabs too) whose URL matches PATTERN — a glob over the whole URL when it has a * (**/api/*), else a substring — with this response, or fail them (--abort); a route for the same pattern replaces it",
    examples: [`svc network route '**/api/*' --body '{"items":[]}'`, "svc network route /api/data --status 500", "svc network route '**/*.png' --abort", "svc network route /report --body @report.html --content-type text/html"],
    hosted: true,
    flags: { body: "--body <text>", status: "--status <n>", headers: "--header <name:value>", contentType: "--content-type <type>" },
    files: { body: { maxBytes: ROUTE_LIMITS.maxBodyBytes, why: "a file of the CLI's own machine; an MCP client (maybe remote) sends the body itself" } },
  },
  needs: "session",
  check: (i, spell) => {
    const response = RESPONSE.map(spell).join(", ").replace(/, ([^,]*)$/, " or $1");
    const answers = RESPONSE.some((p) => i[p] !== undefined);
    if (i.abort) return answers ? `${spell("abort")} goes alone: an aborted request gets no ${response}` : undefined;
    return answers ? undefined : `give ${response} (a response), or ${spell("abort")}`;
  },
  // Every property checked before a door starts a browser (or reaches a session) for it.
  read: async (i, spell) => {
    await routeOf(i, spell);
    return {};
  },
  run: async (ctx, i): Promise<Report> => {
    const next = await routeOf(i, ctx.spell);
    const door = await ctx.routes();
    const before = door.current();
    const kept = before.filter((r) => r.pattern !== next.pattern);
    const replaced = kept.length !== before.length;
    // A pattern routed again is replaced; the newest route wins where two match.
    const applied = await apply(door, [...kept, next]);
    const text = `${replaced ? "rerouted" : "routed"} ${next.pattern} → ${await describeRoute(next)} in ${tabs(applied)}; routes now:\n${await listed(door.current())}`;
    return { kind: "report", text, data: { route: await shown(next), replaced, applied: { tabs: applied.pages, failed: applied.failed } } };
  },
});

export const unroute = capability({
  name: "unroute",
  description: "Remove the route of this pattern, or every route; answers with the routes left",
  input: { pattern: z.string().min(1).max(ROUTE_LIMITS.maxPattern).optional().describe("the pattern given to route; every route when left out") },
  mcp: { cap: "network", annotations: moves("Remove mocks", true) },
  cli: {
    verb: "network unroute",
    args: "[pattern]",
    description: "remove the route of PATTERN (as given to svc network route), or every route: the requests reach the network again",
    examples: ["svc network unroute '**/api/*'", "svc network unroute"],
    hosted: true,
  },
  needs: "session",
  run: async (ctx, i): Promise<Report> => {
    const door = await ctx.routes();
    const before = door.current();
    const kept = i.pattern === undefined ? [] : before.filter((r) => r.pattern !== i.pattern);
    if (i.pattern !== undefined && kept.length === before.length) throw new ServiceInvalidArgumentError(`invalid pattern: ${door.scope} has no route ${JSON.stringify(i.pattern.slice(0, 200))}`);
    const applied = await apply(door, kept);
    const removed = before.length - kept.length;
    return { kind: "report", text: `removed ${removed} route${removed === 1 ? "" : "s"}; routes now:\n${await listed(door.current())}`, data: { removed, routes: kept.length, applied: { tabs: applied.pages, failed: applied.failed } } };
  },
});

/** The list on both doors: MCP had it only after a change, the CLI as `svc network routes`. */
export const routes = capability({
  name: "routes",
  description: "The routes every tab's requests meet: pattern, how it matches, the response or abort",
  input: {},
  mcp: { cap: "network", annotations: readOnly("Routes") },
  cli: {
    verb: "network routes",
    args: "",
    description: "list the session's routes: pattern, how it matches, the response or abort",
    examples: ["svc network routes", "svc --json network routes"],
    hosted: true,
  },
  needs: "session",
  run: async (ctx): Promise<Report> => {
    const door = await ctx.routes();
    const all = door.current();
    const rows = await Promise.all(all.map(async (r) => [r.pattern, matches(r.pattern), await describeRoute(r)]));
    const text = all.length ? ctx.columns([["PATTERN", "MATCHES", "RESPONSE"], ...rows]).join("\n") : `${door.scope} has no routes`;
    return { kind: "report", text, data: { routes: await Promise.all(all.map(shown)) } };
  },
});

export const ROUTE_CAPABILITIES: readonly Capability[] = [route, unroute, routes] as readonly Capability[];
