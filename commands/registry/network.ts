/** The requests of a session's pages: `svc network requests|request`, and a HAR of them (`svc har start|stop`). */
import { type GroupDecl, command, flag, value } from "./types.js";

export const NETWORK_GROUPS: readonly GroupDecl[] = [
  { name: "network", description: "the session's network: the requests its pages made (every tab, between commands too), one with its body; routes that mock or block requests" },
  { name: "har", description: "record the session's requests as a HAR 1.2 file (importable in Chrome DevTools)" },
];

export const NETWORK_COMMANDS = [
  command({
    name: "network requests",
    description: "list the session's requests, oldest first (the newest 1,000): id, method, status, type, URL, duration",
    options: {
      filter: value("--filter <text>", "only requests whose URL contains TEXT (case-insensitive)"),
      clear: flag("--clear", "empty the session's network log after listing it"),
    },
    examples: ["svc network requests", "svc network requests --filter /api/", "svc --json network requests", "svc network requests --clear"],
    hosted: true,
    run: async (c, _a, o) => (await import("../devtools/network.js")).requests(c.globals, o),
  }),
  command({
    name: "network request",
    args: "<id>",
    description: "show one request (an id from svc network requests): status, headers, timing; --body: its response body, as Chrome still holds it",
    options: { body: flag("--body", "also the response body (at most 10 MB; a binary body as base64)") },
    examples: ["svc network request r12", "svc network request r12 --body", "svc --json network request r12 --body"],
    hosted: true,
    run: async (c, [id], o) => (await import("../devtools/network.js")).request(c.globals, id as string, o),
  }),
  command({
    name: "har start",
    description: "start recording the session's requests for a HAR file (every tab)",
    examples: ["svc har start"],
    hosted: true,
    run: async (c) => (await import("../devtools/har.js")).harStart(c.globals),
  }),
  command({
    name: "har stop",
    args: "<file>",
    description: "stop recording and write the HAR 1.2 file of the requests since svc har start (atomically; text bodies Chrome still holds included)",
    examples: ["svc har stop session.har"],
    hosted: true,
    run: async (c, [file]) => (await import("../devtools/har.js")).harStop(c.globals, file as string, c.version),
  }),
];
