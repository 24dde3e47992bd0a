/** The network group (its `requests` and `request` are capabilities: src/capabilities/network.ts; `route`, `unroute` and `routes`: routes.ts), and a HAR of the requests (`svc har start|stop`). */
import { type GroupDecl, command } from "./types.js";

export const NETWORK_GROUPS: readonly GroupDecl[] = [
  { name: "network", description: "the session's network: the requests its pages made (every tab, between commands too), one with its body; routes that mock or block requests" },
  { name: "har", description: "record the session's requests as a HAR 1.2 file (importable in Chrome DevTools)" },
];

export const NETWORK_COMMANDS = [
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
