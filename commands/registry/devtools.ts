/** What DevTools shows of a session's pages: console, errors, screenshots, PDFs and the trace are capabilities (src/capabilities/); the trace's group is named here. */
import type { GroupDecl } from "./types.js";

/** The group of `svc trace start|stop` (src/capabilities/trace.ts). */
export const TRACE_GROUP: GroupDecl = { name: "trace", description: "record a Chrome performance trace of the session (DevTools Performance panel)" };
