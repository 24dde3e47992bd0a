#!/usr/bin/env node
// A command on a live session goes to the session's resident host when one listens (commands/host-client.ts);
// otherwise, and whenever anything is unexpected, the full CLI runs here.
import { runOnHost } from "../dist/commands/host-client.js";

if (!(await runOnHost(process.argv.slice(2)))) await import("../dist/commands/main.js");
