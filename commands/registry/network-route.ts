/**
 * The session's network routes: `svc network route|unroute|routes` (commands/devtools/network-route.ts), applied by the
 * session's host to every page (commands/host/fetch.ts). Hosted: they ask the host, never a model.
 */
import { command, flag, list, value } from "./types.js";

/** Commands of the `network` group (declared in network.ts). */
export const NETWORK_ROUTE_COMMANDS = [
  command({
    name: "network route",
    args: "<pattern>",
    usage: "PATTERN [--body TEXT|@FILE] [--status N] [--header K:V ...] [--content-type T] | PATTERN --abort",
    description:
      "answer the requests of every tab of the session (later tabs too) whose URL matches PATTERN — a glob over the whole URL when it has a * (**/api/*), else a substring — with this response, or fail them (--abort); a route for the same pattern replaces it",
    options: {
      body: value("--body <text>", "the response body: the text itself (a JSON body is served as application/json), or @FILE for a file's bytes (≤ 1 MB)"),
      status: value("--status <n>", "the response status (default 200)"),
      header: list("--header <name:value>", "a response header (repeatable)"),
      contentType: value("--content-type <type>", "the response's Content-Type (default: application/json for a JSON body, else text/plain)"),
      abort: flag("--abort", "fail the request instead (the page sees a network error, blocked by client)"),
    },
    examples: [`svc network route '**/api/*' --body '{"items":[]}'`, "svc network route /api/data --status 500", "svc network route '**/*.png' --abort", "svc network route /report --body @report.html --content-type text/html"],
    hosted: true,
    run: async (c, [pattern], o) => (await import("../devtools/network-route.js")).route(c.globals, pattern as string, o),
  }),
  command({
    name: "network unroute",
    args: "[pattern]",
    description: "remove the route of PATTERN (as given to svc network route), or every route: the requests reach the network again",
    examples: ["svc network unroute '**/api/*'", "svc network unroute"],
    hosted: true,
    run: async (c, [pattern]) => (await import("../devtools/network-route.js")).unroute(c.globals, pattern as string | undefined),
  }),
  command({
    name: "network routes",
    description: "list the session's routes: pattern, how it matches, the response or abort",
    examples: ["svc network routes", "svc --json network routes"],
    hosted: true,
    run: async (c) => (await import("../devtools/network-route.js")).listRoutes(c.globals),
  }),
];
