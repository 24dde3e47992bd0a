/**
 * The command registry (commands/registry/) walked as data: every command has an example of itself, flags and
 * names are unique, each option's key is the attribute commander gives it, the session host's list is the
 * registry's hosted commands, every MCP tool is annotated and every property described, and the command
 * tables of README.md and docs/cli.md list exactly the registry's commands.
 */
import { readFileSync } from "node:fs";
import { Option } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, GLOBAL_OPTIONS, GROUPS } from "../../commands/registry/index.js";
import { HOSTED } from "../../commands/registry/hosted.js";
import { hostedSource } from "../../commands/registry/hosted-source.js";
import { isForwardedEnv } from "../../commands/registry/host-env.js";
import { attributeName } from "../../commands/registry/types.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { CAPS, TOOLS } from "../../src/mcp/tools.js";

const longFlag = (flags: string) => /--[\w-]+/.exec(flags)?.[0];
const shortFlag = (flags: string) => /(?:^|\s)(-\w)\b/.exec(flags)?.[1];

describe("command registry", () => {
  it("every command has at least one --help example, each running that very command", () => {
    for (const c of COMMANDS) {
      expect(c.examples.length, c.name).toBeGreaterThan(0);
      for (const e of c.examples) expect(e.startsWith(`svc ${c.name}`) || e.startsWith(`svc --json ${c.name}`), `${c.name}: ${e}`).toBe(true);
    }
  });

  it("no two commands share a name or alias, and no group is also a command", () => {
    const names = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? []).map((a) => [...c.name.split(" ").slice(0, -1), a].join(" "))]);
    expect(new Set(names).size).toBe(names.length);
    for (const g of GROUPS) expect(names, g.name).not.toContain(g.name);
    for (const c of COMMANDS.filter((x) => x.name.includes(" "))) expect(GROUPS.map((g) => g.name), c.name).toContain(c.name.split(" ")[0]);
  });

  it("within a command no flag repeats (nor a global one), and each option's key is commander's attribute name", () => {
    const globals = Object.values(GLOBAL_OPTIONS).flatMap((o) => [longFlag(o.flags), shortFlag(o.flags)].filter(Boolean));
    for (const [key, o] of Object.entries(GLOBAL_OPTIONS)) expect(new Option(o.flags).attributeName(), o.flags).toBe(key);
    for (const c of COMMANDS) {
      const flags = Object.values(c.options ?? {}).flatMap((o) => [longFlag(o.flags), shortFlag(o.flags)].filter(Boolean));
      expect(new Set(flags).size, `${c.name}: ${flags.join(" ")}`).toBe(flags.length);
      for (const f of flags) expect(globals, `${c.name} ${f}`).not.toContain(f);
      for (const [key, o] of Object.entries(c.options ?? {})) {
        expect(new Option(o.flags).attributeName(), `${c.name} ${o.flags}`).toBe(key);
        expect(attributeName(o.flags), `${c.name} ${o.flags}`).toBe(key);
        expect(o.description.trim(), `${c.name} ${o.flags}`).not.toBe("");
      }
    }
  });

  it("the session host runs exactly the registry's hosted commands, and forwards SVC_* plus a few named variables", () => {
    expect([...HOSTED].sort()).toEqual(COMMANDS.filter((c) => c.hosted).map((c) => c.name).sort());
    // hosted.ts is generated from the registry: a command or flag added without `npm run gen:hosted` is seen here.
    expect(readFileSync(new URL("../../commands/registry/hosted.ts", import.meta.url), "utf8"), "run npm run gen:hosted").toBe(hostedSource());
    expect(isForwardedEnv("SVC_MODEL")).toBe(true);
    expect(isForwardedEnv("CHROME_PATH")).toBe(true);
    expect(isForwardedEnv("OPENAI_API_KEY")).toBe(false);
    expect(isForwardedEnv("XSVC_MODEL")).toBe(false);
  });

  it("every MCP tool has annotations and a title, every property a description; commands name only real tools", () => {
    const capabilityTools = CAPABILITIES.filter((c) => c.mcp).map((c) => [c.name, { cap: c.mcp!.cap, description: c.description, annotations: c.mcp!.annotations, inputSchema: c.input }] as const);
    const tools = [...Object.entries(TOOLS), ...capabilityTools];
    expect(tools.length).toBe(42); // `routes` joined route and unroute on MCP (issue 42)
    expect(new Set(tools.map(([n]) => n)).size).toBe(tools.length);
    for (const [name, t] of tools) {
      expect(CAPS, name).toContain(t.cap);
      expect(t.description.trim(), name).not.toBe("");
      expect(t.annotations.title.trim(), name).not.toBe("");
      for (const hint of ["readOnlyHint", "destructiveHint", "openWorldHint"] as const) expect(typeof t.annotations[hint], `${name}.${hint}`).toBe("boolean");
      if (t.annotations.readOnlyHint) expect(t.annotations.destructiveHint, name).toBe(false);
      for (const [prop, schema] of Object.entries(t.inputSchema)) expect((schema as { description?: string }).description?.trim(), `${name}.${prop}`).toBeTruthy();
    }
    for (const c of COMMANDS.filter((x) => x.mcpTool)) expect(tools.map(([n]) => n), c.name).toContain(c.mcpTool);
  });

  it.each(["README.md", "docs/cli.md"])("the command table of %s lists exactly the registry's commands", (file) => {
    const md = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    const table = md.split(/^## Commands$/m)[1]!.split(/^\| command \| what it does \|$/m)[1]!.split(/\n(?!\|)/)[0]!;
    const groups = new Set(GROUPS.map((g) => g.name));
    const listed = new Set<string>();
    for (const row of table.split("\n").filter((l) => l.startsWith("| `svc"))) {
      const first = row.split(/ \| /)[0]!;
      for (const m of first.matchAll(/`svc ((?:[a-z]+\\\|)*[a-z]+)(?: ((?:[a-z]+\\\|)*[a-z]+))?/g)) {
        for (const name of m[1]!.split("\\|")) {
          if (groups.has(name)) for (const sub of (m[2] ?? "").split("\\|")) listed.add(`${name} ${sub}`);
          else listed.add(name);
        }
      }
    }
    // `svc sessions start …` rows and `svc state save FILE` name one subcommand each; a row may name several.
    for (const m of table.matchAll(/`svc (sessions|state) (\w+)/g)) listed.add(`${m[1]} ${m[2]}`);
    expect([...listed].sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });
});
