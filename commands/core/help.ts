/**
 * What `svc <command> --help` shows besides commander's own lines: the global flags every command inherits
 * (commander's showGlobalOptions) and the examples of each command, declared with it in the registry
 * (commands/registry/). The registry's unit test requires at least one per command.
 */
import type { Command } from "commander";

/** The "Examples:" block of a command's help. */
export function examplesHelp(examples: readonly string[]): string {
  return examples.length ? `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n` : "";
}

/** Called once, after every command is registered: each help lists the global flags too. */
export function addHelp(program: Command): void {
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.configureHelp({ ...cmd.configureHelp(), showGlobalOptions: true });
}

/** commander's "unknown command 'gotoo'\n(Did you mean goto?)" as one line: `unknown command 'gotoo' (did you mean goto?)`. */
export function usageMessage(message: string): string {
  return message
    .replace(/^error:\s*/, "")
    .replace(/\s*\n\s*\(Did you mean (.+?)\?\)/, " (did you mean $1?)")
    .replace(/\s*\n\s*/g, " ");
}
