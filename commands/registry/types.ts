/**
 * The shapes of the command registry: a command is declared once (name, arguments, typed flags,
 * help examples, whether the session host may run it, its MCP tool) and program.ts turns the declarations
 * into the commander program, help.ts into `--help` examples, hosted.ts's list is checked against them.
 */
import { type NumberRange, rangeText } from "../core/number-range.js";
import type { GlobalOptions } from "../core/output.js";

export type { NumberRange };

/** The global flags every action receives: GlobalOptions plus `--env` (cloud mode, commands/core/cloud.ts). */
export type Globals = GlobalOptions & { env?: string | undefined };

/** What a flag is; registry/schema.ts gives each kind its zod type. */
export type OptionKind = "flag" | "negated" | "value" | "defaulted" | "choice" | "list" | "optional-value" | "number";

/** One flag: commander's flags string (`-o, --output <file>`), its help, and the type of its parsed value (T). */
export interface OptionDecl<T = unknown> {
  flags: string;
  description: string;
  kind: OptionKind;
  /** The default, as the action gets it and --help shows it (`(default: "10")`, a number flag's `(default: 3000)`). */
  default?: string | number;
  /** Allowed values: commander refuses others with its own one-line error. */
  choices?: readonly string[];
  /** The action always gets a value (a default, or a `--no-x` flag's true). */
  always?: true;
  /** Each raw value goes through this as commander reads it; what it throws is commander's "is invalid" error. */
  parse?: (raw: string) => string;
  /** A number flag's range: core/numbers.ts's one schema reads its text as commander parses it; the action gets a number. */
  range?: NumberRange;
  /** The environment variable read when the flag is not given (its text goes through the same parser). */
  env?: string;
  /** Type only: the value the action receives. */
  readonly valueType?: T;
}

export type Options = Readonly<Record<string, OptionDecl>>;

type ValueOf<D> = D extends OptionDecl<infer T> ? T : never;
type Always<O extends Options> = { [K in keyof O]: O[K] extends { always: true } ? K : never }[keyof O];

/** The parsed flags of a declaration, keyed by commander's attribute names. */
export type FlagsOf<O extends Options> = { [K in Exclude<keyof O, Always<O>>]?: ValueOf<O[K]> } & { [K in Always<O>]: ValueOf<O[K]> };

/** What an action gets besides its arguments and flags. */
export interface RunContext {
  globals: Globals;
  /** The command's name as typed (a verb's own name). */
  name: string;
  /** Its positional arguments as commander collected them (variadic ones flattened). */
  rawArgs: readonly string[];
  /** Aborted when a signal asks a long-running command (`serving`) to stop. */
  stop: AbortSignal;
  version: string;
}

/** Positional arguments in declaration order: a string, a string[] for a variadic one, undefined when left out. */
export type Positional = ReadonlyArray<string | string[] | undefined>;

/** The annotations of an MCP tool (the MCP spec's ToolAnnotations). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface CommandDecl<O extends Options = Options> {
  /** The path: `goto`, `sessions start`. */
  name: string;
  aliases?: readonly string[];
  /** commander's argument syntax: `<url>`, `[target] [where]`, `[args...]`. */
  args?: string;
  /** Each argument's help, by its name in `args` (`svc click --help` lists them). */
  argHelp?: Readonly<Record<string, string>>;
  /** The usage line when commander's own would mislead. */
  usage?: string;
  description: string;
  options?: O;
  /** `--help` examples, each a full command line starting `svc <name>` (or `svc --json <name>`). */
  examples: readonly string[];
  /** More help text after the examples. */
  helpAfter?: string;
  /** The session host (commands/host/main.ts) may run it: it drives a live session's page and never asks a model. */
  hosted?: boolean;
  /** With a positional (a URL) it may open a browser of its own: the host takes only the bare command. */
  hostedBare?: true;
  /** The MCP tool of the same capability (src/mcp/tools.ts), when there is one. */
  mcpTool?: string;
  /** Errors and results as JSON lines (one per line), even an error document. */
  jsonLines?: boolean;
  /** Runs until a signal stops it (serve, mcp, worker): a signal is how it ends, not an interruption. */
  serving?: boolean;
  /** The implementation: imported only when the command runs. A serving command returns the signal that stopped it. */
  run(ctx: RunContext, args: Positional, flags: FlagsOf<O>): Promise<unknown>;
}

/** Identity, so each declaration's flags type is inferred from its options. */
export function command<O extends Options>(d: CommandDecl<O>): CommandDecl<O> {
  return d;
}

/** A command with subcommands (`sessions`, `state`, `config`). */
export interface GroupDecl {
  name: string;
  description: string;
}

/** A boolean flag (`--headed`). */
export function flag(flags: string, description: string): OptionDecl<boolean> {
  return { flags, description, kind: "flag" };
}

/** `--no-x`: x is true unless the flag is given. */
export function negated(flags: `--no-${string}`, description: string): OptionDecl<boolean> & { always: true } {
  return { flags, description, kind: "negated", always: true };
}

/** A flag with one value (a string; the command parses it and names the flag in its error). */
export function value(flags: string, description: string): OptionDecl<string> {
  return { flags, description, kind: "value" };
}

/** A flag with one value and a default (the action always gets a string). */
export function defaulted(flags: string, description: string, defaultValue: string): OptionDecl<string> & { always: true } {
  return { flags, description, kind: "defaulted", default: defaultValue, always: true };
}

function numberFlag(flags: string, description: string, range: NumberRange, defaultValue?: number): OptionDecl<number> {
  return { flags, description: `${description}; ${rangeText(range)}`, kind: "number", range, ...(defaultValue !== undefined ? { default: defaultValue, always: true as const } : {}) };
}

/** A whole-number flag (`--port <n>`): the action gets a number within `range`; anything else is refused naming the flag. */
export function int(flags: string, description: string, range: Omit<NumberRange, "whole" | "size">): OptionDecl<number>;
export function int(flags: string, description: string, range: Omit<NumberRange, "whole" | "size">, defaultValue: number): OptionDecl<number> & { always: true };
export function int(flags: string, description: string, range: Omit<NumberRange, "whole" | "size">, defaultValue?: number): OptionDecl<number> {
  return numberFlag(flags, description, { ...range, whole: true }, defaultValue);
}

/** A number flag that takes fractions (`--max-cpu <percent>`). */
export function num(flags: string, description: string, range: Omit<NumberRange, "whole" | "size">): OptionDecl<number> {
  return numberFlag(flags, description, range);
}

/** A byte-size flag (`--max-memory <size>`: 6G, 512M, or bytes): the action gets the bytes. */
export function size(flags: string, description: string): OptionDecl<number> {
  return numberFlag(flags, description, { size: true, whole: true, min: 1 });
}

/** A flag whose value is one of `choices`. */
export function choice<const C extends readonly [string, ...string[]]>(flags: string, description: string, choices: C): OptionDecl<C[number]> {
  return { flags, description, kind: "choice", choices };
}

/** A flag that may be given more than once. */
export function list(flags: string, description: string): OptionDecl<string[]> {
  return { flags, description, kind: "list" };
}

/** A flag whose value may be left out (`--load [state]`): true, or the value. */
export function optionalValue(flags: string, description: string): OptionDecl<string | boolean> {
  return { flags, description, kind: "optional-value" };
}

/** The one-shot browser flags of commands that may launch a browser of their own. */
export const ONE_SHOT = {
  new: flag("--new", "run on a browser of its own (one-shot), even when a session is live"),
  headed: flag("--headed", "one-shot browser: show the window"),
  viewport: value("--viewport <WxH>", "one-shot browser: viewport size"),
  executablePath: value("--executable-path <path>", "one-shot browser: Chrome/Chromium to launch"),
} as const;

/** The launch flags of commands that start browsers of their own (serve, mcp, batch, worker). */
export function launchOptions(about: { headed: string; viewport: string; executablePath: string }) {
  return {
    headed: flag("--headed", about.headed),
    viewport: value("--viewport <WxH>", about.viewport),
    executablePath: value("--executable-path <path>", about.executablePath),
  } as const;
}

/** commander's attribute name of a flags string: `-o, --output <file>` → output, `--no-redirects` → redirects. */
export function attributeName(flags: string): string {
  // Of two long flags (`--variables, --var`), commander names the option by the last.
  const long = [...flags.matchAll(/--([\w-]+)/g)].at(-1)?.[1] ?? "";
  return long.replace(/^no-/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
