/**
 * The rules inside src/server/ (ARCHITECTURE.md "The server's folders"), as functions the architecture test
 * (test/unit/architecture.test.ts) applies to every import and checks against planted inputs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { type Import, ROOT } from "./imports.js";

/** src/server/'s HTTP layer: the route files of every area use it; no domain file does. */
const SERVER_HTTP = "http";
/**
 * src/server/'s areas, bottom first, each with the areas it may import: an area names only areas declared before it,
 * so they form no circle. A new sideways import is a deliberate line here; one pointing up is refused: move the
 * shared piece down or let the upper area register with the lower (features implement platform/feature.ts).
 */
export const SERVER_AREA_DEPS: Readonly<Record<string, readonly string[]>> = {
  isolation: [],
  cluster: [],
  platform: ["isolation", "cluster"],
  features: ["platform", "isolation", "cluster"],
  cdp: ["features", "platform", "isolation"],
  live: ["cdp", "features", "platform"],
  stagehand: ["cluster"],
  "session-api": ["stagehand", "cdp", "platform", "isolation", "cluster"],
  ui: [],
};
const SERVER_AREAS = Object.keys(SERVER_AREA_DEPS);
/**
 * src/server/'s own top-level files: the composition root (index.ts, app.ts), and what every part shares,
 * below the HTTP layer: settings (config.ts, limits.ts), the failures domain code throws and its validation
 * (failures.ts), who a tenant is (tenant.ts), what an event carries (events.ts), the WebSocket relay (relay.ts).
 */
const SERVER_ROOT = { composition: ["index.ts", "app.ts"], shared: ["config.ts", "limits.ts", "failures.ts", "tenant.ts", "events.ts", "relay.ts"] } as const;
/** Request handlers that are not Hono routes but answer requests themselves (the CDP proxy's upgrades, the cluster's forwarding). */
const REQUEST_HANDLERS = ["src/server/cdp/proxy.ts", "src/server/cluster/forward-http.ts", "src/server/cluster/forward-ws.ts"];

type ServerPart = { kind: "http" } | { kind: "area"; name: string } | { kind: "composition" } | { kind: "shared" } | { kind: "unknown"; what: string };

export function serverPart(file: string): ServerPart {
  const p = file.replace(/^src\/server\//, "");
  const top = p.includes("/") ? p.slice(0, p.indexOf("/")) : undefined;
  if (top === undefined) {
    if ((SERVER_ROOT.composition as readonly string[]).includes(p)) return { kind: "composition" };
    if ((SERVER_ROOT.shared as readonly string[]).includes(p)) return { kind: "shared" };
    return { kind: "unknown", what: `src/server/${p}` };
  }
  if (top === SERVER_HTTP) return { kind: "http" };
  if ((SERVER_AREAS as readonly string[]).includes(top)) return { kind: "area", name: top };
  return { kind: "unknown", what: `src/server/${top}/` };
}

/** A route file: its name starts with "routes", or it is one of the raw request handlers. */
const isRouteFile = (file: string) => /^routes[^/]*\.ts$/.test(file.slice(file.lastIndexOf("/") + 1)) || REQUEST_HANDLERS.includes(file);

/** Why `from` may not import `to` (both in src/server/), or undefined. `deps`: the areas' declared order. */
export function serverViolation(i: Pick<Import, "from" | "typeOnly">, to: string, deps: Readonly<Record<string, readonly string[]>> = SERVER_AREA_DEPS): string | undefined {
  const a = serverPart(i.from);
  const b = serverPart(to);
  for (const m of [a, b]) if (m.kind === "unknown") return `${m.what} has no role in the server: give it one in this test and in ARCHITECTURE.md`;
  if (a.kind === "composition") return undefined;
  if (b.kind === "composition") return i.typeOnly ? undefined : "only the composition root (index.ts, app.ts) is imported for values by nobody: import its types only";
  if (a.kind === "shared") return b.kind === "shared" ? undefined : `the shared files (${SERVER_ROOT.shared.join(", ")}) import only each other`;
  if (a.kind === "http") return b.kind === "http" || b.kind === "shared" ? undefined : "http/ knows no area (direction: http/ ← areas ← index.ts/app.ts)";
  if (a.kind !== "area") return undefined;
  if (b.kind === "http") {
    return isRouteFile(i.from) ? undefined : "a domain file must not import http/ (only routes speak HTTP): the tenant is tenant.ts's, events are events.ts's, bad input is failures.ts's parseWith";
  }
  if (b.kind !== "area") return undefined;
  if (a.name !== b.name && !deps[a.name]?.includes(b.name)) return `${a.name}/ may not import ${b.name}/ (SERVER_AREA_DEPS: ${a.name}/ imports ${deps[a.name]?.join(", ") || "no other area"})`;
  // An area's index.ts assembles its own parts, its request handlers included (cluster/index.ts).
  const assemblesOwn = a.name === b.name && i.from.endsWith("/index.ts");
  if (isRouteFile(to) && !isRouteFile(i.from) && !assemblesOwn) return "a domain file must not import a route file (routes call the domain, not the other way)";
  return undefined;
}

/** The circles of a graph (server areas, or src/ files), each as a path back to its start; empty when there is none. */
export function areaCycles(graph: Readonly<Record<string, readonly string[]>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const dfs = (n: string) => {
    state.set(n, "visiting");
    stack.push(n);
    for (const m of graph[n] ?? []) {
      if (state.get(m) === "visiting") cycles.push([...stack.slice(stack.indexOf(m)), m].join(" → "));
      else if (!state.has(m)) dfs(m);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of Object.keys(graph)) if (!state.has(n)) dfs(n);
  return cycles;
}

/** Where a declared order names an area that is not declared before the one that imports it. */
export function orderViolations(deps: Readonly<Record<string, readonly string[]>>): string[] {
  const order = Object.keys(deps);
  return order.flatMap((area, i) => (deps[area] ?? []).filter((d) => !order.slice(0, i).includes(d)).map((d) => `${area} → ${d}: ${d} is not declared before ${area}`));
}

/** Which areas the files of each area import (type-only imports too: a circle of types is still a circle). */
export function serverAreaGraph(imports: readonly Pick<Import, "from" | "target">[]): Record<string, string[]> {
  const graph: Record<string, string[]> = {};
  for (const i of imports) {
    if (!i.from.startsWith("src/server/") || !i.target?.startsWith("src/server/")) continue;
    const a = serverPart(i.from);
    const b = serverPart(i.target);
    if (a.kind !== "area" || b.kind !== "area" || a.name === b.name) continue;
    const to = (graph[a.name] ??= []);
    if (!to.includes(b.name)) to.push(b.name);
  }
  return graph;
}

/** Files that construct HttpError (`new HttpError(…)`), with the line. */
export function httpErrorConstructions(file: string, text = readFileSync(join(ROOT, file), "utf8")): number[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "HttpError") lines.push(sf.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return lines;
}

/** Whether `file` may choose an HTTP status: http/, app.ts and route files. */
export const choosesStatuses = (file: string) => file.startsWith(`src/server/${SERVER_HTTP}/`) || file === "src/server/app.ts" || isRouteFile(file);

