/**
 * The CLI commands generated from the capability declarations (src/capabilities/): one per verb, its flags
 * from the input's shape, its help from the declaration; the action turns the command line into the input
 * (checked by the capability's schema) and runs the one handler (commands/door/run.ts).
 */
import { type Capability, type CliFlag, type CliVerb, argNames, CAPABILITIES, cliFlags, cliVerbs, positionalNames, propertyHelp } from "../../src/capabilities/index.js";
import { type CommandDecl, command, flag, list, negated, type OptionDecl, optionalValue, value } from "./types.js";

/** A choice is read as a value: the capability's schema refuses another in its own words, the same on both doors. */
function optionOf(f: CliFlag): OptionDecl {
  if (f.kind === "switch") return flag(f.flags, f.description);
  if (f.kind === "negated") return negated(f.flags as `--no-${string}`, f.description);
  // A record is read from repeated NAME:VALUE flags (cliInput makes them one object).
  if (f.kind === "list" || f.kind === "record") return list(f.flags, f.description);
  if (f.kind === "optional-choice") return optionalValue(f.flags, f.description);
  return value(f.flags, f.description);
}

/** Each argument's help: its property's; an argument that stands for several (`<target-or-key>`) names theirs. */
function argHelp(c: Capability): Record<string, string> {
  const names = argNames(c);
  const unnamed = positionalNames(c).filter((p) => !names.includes(p));
  return Object.fromEntries(names.map((n) => [n, Object.hasOwn(c.input, n) ? propertyHelp(c, n) : unnamed.map((p) => `${p}: ${propertyHelp(c, p)}`).join("; or ")]));
}

function commandOf(v: CliVerb): CommandDecl {
  const c = v.capability;
  return command({
    name: v.verb,
    args: c.cli!.args,
    ...(c.cli!.usage !== undefined ? { usage: c.cli!.usage } : {}),
    argHelp: argHelp(c),
    ...(c.cli!.usage ? { usage: c.cli!.usage } : {}),
    description: v.description,
    // Keyed as commander parses them (the door reads each back into its property).
    options: Object.fromEntries(cliFlags(c, v.preset).map((f) => [f.attribute, optionOf(f)])),
    examples: v.examples,
    hosted: c.cli!.hosted,
    ...(c.cli!.opensUrl ? { hostedBare: true as const } : {}),
    ...(c.cli!.live ? { jsonLines: true as const } : {}),
    ...(c.mcp ? { mcpTool: c.name } : {}),
    run: async (ctx, _a, flags) => (await import("../door/run.js")).runCapability(ctx.globals, v, ctx.rawArgs, flags),
  });
}

/** Every command a capability declares. */
export const CAPABILITY_COMMANDS: readonly CommandDecl[] = cliVerbs(CAPABILITIES).map(commandOf);
