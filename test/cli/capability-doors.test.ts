/**
 * The capability declarations across both doors as a user meets them: `svc mcp --caps all`'s tool list (the built
 * server, over stdio) and the CLI's commander program. For every capability on both, the CLI's arguments and flags and
 * the MCP tool's properties match in name, type and description; every property is described; one on a single door is
 * declared so, with a reason.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../commands/registry/program.js";
import { CAPABILITIES, type Capability, cliFlags, cliInput, cliKind, cliVerbs, positionalNames, propertyHelp, shapeFor } from "../../src/capabilities/index.js";
import { assertBuilt, sandbox } from "./helpers.js";
import { openStdio } from "./mcp-support.js";

type JsonSchema = { type?: string; anyOf?: JsonSchema[]; enum?: unknown[]; description?: string };
type Tool = { name: string; description?: string; inputSchema: { properties?: Record<string, JsonSchema> } };

let client: Client;
let tools: Tool[];
const program = buildProgram({ version: "0", setGlobals: () => {}, globals: () => ({ json: false, verbose: 0, session: undefined }), dispatch: async () => {} }, "test");

beforeAll(async () => {
  assertBuilt();
  client = await openStdio(sandbox().env, ["--caps", "all"]);
  tools = (await client.listTools()).tools as Tool[];
});

afterAll(async () => {
  await client?.close();
});

const both = CAPABILITIES.filter((c) => c.cli && c.mcp);

/** The command at a verb's path (`click`, or a group's subcommand: `network requests`). */
function commandAt(verb: string): Command | undefined {
  let at: Command | undefined = program;
  for (const word of verb.split(" ")) at = at?.commands.find((x) => x.name() === word);
  return at;
}

/** The JSON Schema types a property may take (a union lists each). */
function types(s: JsonSchema): string[] {
  return s.anyOf ? s.anyOf.flatMap(types) : s.enum ? ["enum"] : [s.type ?? "?"];
}

/** A value's JSON Schema types (a string may be an enum's). */
function jsonTypes(v: unknown): string[] {
  if (v === null) return ["null"];
  if (Array.isArray(v)) return ["array"];
  if (typeof v === "number") return ["integer", "number"];
  return typeof v === "string" ? ["string", "enum"] : [typeof v];
}

/** What a verb's word parser (`positional`) makes of a property in the verb's own examples: `svc set viewport 390x844` → object. */
function parsedTypes(c: Capability, property: string): string[] {
  const v = cliVerbs([c])[0]!;
  return c.cli!.examples.flatMap((e) => {
    const words = [...e.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!).slice(2);
    const flags = Object.fromEntries(words.filter((w) => w.startsWith("--")).map((w) => [w.slice(2).replace(/-(\w)/g, (_, x: string) => x.toUpperCase()), true]));
    const value = cliInput(v, words.filter((w) => !w.startsWith("--")), flags)[property];
    return value === undefined ? [] : jsonTypes(value);
  });
}

/** What the CLI gives a property: a positional's value(s) (read as cliInput reads them), a flag's, or what the verb's word parser reads. */
function cliType(c: Capability, cmd: Command, property: string): string[] {
  const arg = cmd.registeredArguments.find((a) => a.name() === property);
  if (arg?.variadic) return ["string", "array"];
  // A positional's word is read as a number or one of a choice, as cliInput reads it.
  const f = cliFlags(c).find((x) => x.property === property) ?? (arg ? cliKind(c, property) : undefined);
  if (!f) return parsedTypes(c, property); // read from words of an argument that stands for several (`<target-or-key>`, `[values...]`)
  if (f.kind === "optional-choice") return ["boolean", "enum"]; // `--load` alone is true, `--load networkidle` a choice
  return f.kind === "switch" || f.kind === "negated" ? ["boolean"] : f.kind === "choice" ? ["enum"] : f.kind === "list" ? ["array"] : f.kind === "record" ? ["object"] : f.numeric ? ["integer", "number"] : ["string"];
}

describe("one declaration per capability", () => {
  it("the capabilities on both doors are real tools and real commands (the walk has something to walk)", () => {
    expect(both.length).toBeGreaterThanOrEqual(20);
    // Ported in the second round of issue 42: one declaration, no copy left in either door.
    expect(both.map((c) => c.name)).toEqual(expect.arrayContaining(["dialog", "pdf"]));
    // Ported in the third round: the network routes (their list on MCP too), act, the agent (its terminal part —
    // live view, --record, --ask-human — the CLI's own) and find (its CLI-only ACTION declared so, with why).
    expect(both.map((c) => c.name)).toEqual(expect.arrayContaining(["route", "unroute", "routes", "act", "agent", "find"]));
    for (const c of both) {
      expect(tools.map((t) => t.name), c.name).toContain(c.name);
      expect(commandAt(c.cli!.verb), c.name).toBeDefined();
    }
  });

  it.each(both.map((c) => [c.name, c] as const))("%s: the same properties on both doors, each described the same, of matching types", (_name, c) => {
    const tool = tools.find((t) => t.name === c.name)!;
    const cmd = commandAt(c.cli!.verb)!;
    expect(tool.description).toBe(c.description);
    const mcpProps = tool.inputSchema.properties ?? {};
    // A flag spelled otherwise than its property (`--max-size` of maxSizeMb) is read back into it.
    const propertyOf = new Map(cliFlags(c).map((f) => [f.attribute, f.property]));
    const cliProps = [...positionalNames(c), ...cmd.options.map((o) => propertyOf.get(o.attributeName()) ?? o.attributeName())];
    expect(Object.keys(mcpProps).sort()).toEqual(Object.keys(shapeFor(c, "mcp")).sort());
    expect(cliProps.sort()).toEqual(Object.keys(shapeFor(c, "cli")).sort());
    for (const [property, schema] of Object.entries(mcpProps)) {
      const help = propertyHelp(c, property);
      expect(help.trim(), `${c.name}.${property} has no description`).not.toBe("");
      expect(schema.description, `${c.name}.${property} on MCP`).toBe(help);
      if (!cliProps.includes(property)) continue;
      const option = cmd.options.find((o) => (propertyOf.get(o.attributeName()) ?? o.attributeName()) === property);
      const arg = cmd.registeredArguments.find((a) => a.name() === property);
      if (option || arg) expect(option?.description ?? arg?.description, `${c.name}.${property} on the CLI`).toBe(help);
      // A property an argument of several holds (`<target-or-key>`): that argument's help names it.
      else expect(cmd.registeredArguments.some((a) => a.description.includes(`${property}: ${help}`)), `${c.name}.${property} in an argument's help`).toBe(true);
      const mcpTypes = types(schema);
      expect(cliType(c, cmd, property).some((t) => mcpTypes.includes(t)), `${c.name}.${property}: CLI ${cliType(c, cmd, property).join("|")} vs MCP ${mcpTypes.join("|")}`).toBe(true);
    }
    for (const [property, only] of Object.entries(c.only ?? {})) expect(only!.why.trim(), `${c.name}.${property}: a one-door property says why`).not.toBe("");
    // A value the CLI reads from a file (`--body @FILE`) is bounded and says why the other door reads none.
    for (const [property, file] of Object.entries(c.cli!.files ?? {})) {
      expect(file.why.trim(), `${c.name}.${property}: a CLI-only file reading says why`).not.toBe("");
      expect(file.maxBytes, `${c.name}.${property}: a file read is bounded`).toBeGreaterThan(0);
    }
  });

  it("a verb that presets a property (dblclick, uncheck) runs the same capability with it set", () => {
    const presets = cliVerbs(CAPABILITIES).filter((v) => v.preset);
    expect(presets.map((v) => v.verb).sort()).toEqual(["dblclick", "uncheck"]);
    for (const v of presets) expect(program.commands.map((x) => x.name())).toContain(v.verb);
  });
});
