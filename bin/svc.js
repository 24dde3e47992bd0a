#!/usr/bin/env node
// CommonJS (bin/package.json), as is the session host's thin client it loads first (commands/host/client.ts,
// built into dist/client by tsconfig.client.json): a command that a live session's host runs reaches it without
// starting Node's ES module loader, which cost 10–35 ms of every such command here. Otherwise, and whenever
// anything is unexpected, the full CLI (ES modules) loads and runs.
"use strict";
const { runOnHost } = require("../dist/client/commands/host/client.js");

// The host's exit code, once stdout has flushed (a truncated JSON document is worse than a late exit).
const exit = (code) => process.stdout.write("", () => process.exit(code));
void runOnHost(process.argv.slice(2), exit).then((hosted) => hosted || import("../dist/commands/main.js"));
