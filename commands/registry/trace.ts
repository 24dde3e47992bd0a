/** The session's Chrome trace: `svc trace start|stop` (commands/devtools/trace.ts; held by the session's host, src/browser/trace.ts). */
import { SHARED_DESCRIPTIONS as SHARED } from "../../src/mcp/descriptions.js";
import { type GroupDecl, command, flag, value } from "./types.js";

export const TRACE_GROUP: GroupDecl = { name: "trace", description: "record a Chrome performance trace of the session (DevTools Performance panel)" };

export const TRACE_COMMANDS = [
  command({
    name: "trace start",
    description: "start recording a Chrome trace of every tab of the session (one at a time; it ends with the session if never stopped)",
    options: {
      screenshots: flag("--screenshots", "also record screenshots of the frames (the filmstrip)"),
      categories: value("--categories <list>", "the trace categories to record instead of the Performance panel's, comma-separated (-x excludes x)"),
      maxSize: value("--max-size <MB>", SHARED.traceMaxSize),
    },
    examples: ["svc trace start", "svc trace start --screenshots", "svc trace start --max-size 20", "svc trace start --categories devtools.timeline,toplevel,blink.user_timing"],
    hosted: true,
    run: async (c, _args, o) => (await import("../devtools/trace.js")).traceStart(c.globals, o),
  }),
  command({
    name: "trace stop",
    args: "<file>",
    description: "stop the trace and write it to FILE (JSON with traceEvents: open it in DevTools' Performance panel); prints load timings, long tasks and the largest contentful paint",
    examples: ["svc trace stop trace.json", "svc --json trace stop trace.json"],
    hosted: true,
    run: async (c, [file]) => (await import("../devtools/trace.js")).traceStop(c.globals, file as string),
  }),
];
