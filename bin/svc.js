#!/usr/bin/env node
// A command on a live session goes to the session's resident host when one listens (commands/host-client.ts);
// otherwise, and whenever anything is unexpected, the full CLI runs here.
import { runOnHost } from "../dist/commands/host-client.js";

// The host's exit code, once stdout has flushed (a truncated JSON document is worse than a late exit).
const exit = (code) => process.stdout.write("", () => process.exit(code));
if (!(await runOnHost(process.argv.slice(2), exit))) await import("../dist/commands/main.js");
