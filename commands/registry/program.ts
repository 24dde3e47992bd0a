/**
 * The commander program, generated from the registry: the global flags, one command per declaration (groups made on the
 * way), its flags (a number read by schema.ts's one schema as commander reads it), and an action that checks the
 * parsed flags against the declaration's zod shape and hands them to main.ts's dispatch. Loaded by main.ts after the
 * `--version` fast path.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { examplesHelp } from "../core/help.js";
import { flagsSchema, numberParser } from "./schema.js";
import type { Verbosity } from "../core/output.js";
import { COMMANDS, GLOBAL_OPTIONS, GROUPS } from "./index.js";
import type { CommandDecl, Globals, OptionDecl, Options, Positional, RunContext } from "./types.js";

export interface ProgramHooks {
  version: string;
  /** The global flags as parsed, before any action runs. */
  setGlobals(g: Globals): void;
  globals(): Globals;
  /** Runs a command: `invoke` with the signal that stops a serving one (`flags`: as checked); main.ts decides the exit code. */
  dispatch(decl: CommandDecl, invoke: (stop: AbortSignal) => Promise<unknown>, flags: unknown): Promise<void>;
}

/** One declared flag as a commander Option. */
export function toOption(d: OptionDecl): Option {
  const o = new Option(d.flags, d.description);
  if (d.choices) o.choices(d.choices);
  if (d.default !== undefined) o.default(d.default);
  if (d.kind === "list") o.argParser((v: string, previous: string[] | undefined) => [...(previous ?? []), v]);
  // What it throws is svc's own INVALID_ARGUMENT line (commander passes on any error but its own).
  if (d.range) o.argParser(numberParser({ ...d, range: d.range }));
  if (d.env) o.env(d.env);
  const parse = d.parse;
  if (parse) {
    o.argParser((v: string) => {
      try {
        return parse(v);
      } catch (e) {
        throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
      }
    });
  }
  return o;
}

/** The flag named in a zod issue about attribute `key`, for the error line. */
function flagOf(options: Options | undefined, key: PropertyKey | undefined): string {
  const d = key === undefined ? undefined : options?.[String(key)];
  return d ? (/--[\w-]+/.exec(d.flags)?.[0] ?? String(key)) : String(key ?? "");
}

/**
 * `words`: build only the commands whose name (or an alias) is one of these (the session host knows the
 * command line is a hosted command's: the rest of the tree, ~90 commands, need not be built for it).
 */
export function buildProgram(hooks: ProgramHooks, description: string, words?: ReadonlySet<string>): Command {
  const program = new Command("svc").description(description).version(hooks.version, "-V, --version");
  for (const d of Object.values(GLOBAL_OPTIONS)) program.addOption(toOption(d));
  program
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .hook("preAction", (_this, action) => {
      const o = action.optsWithGlobals<{ json?: boolean; verbose?: string; session?: string; env?: string; downloads?: string; dialog?: "accept" | "dismiss" }>();
      const g: Globals = { json: !!o.json, verbose: (o.verbose ? Number(o.verbose) : 0) as Verbosity, session: o.session, env: o.env, downloads: o.downloads, dialog: o.dialog };
      // `svc agent` prints JSON lines: an error document must be one line too.
      if (COMMANDS.find((c) => c.name === action.name())?.jsonLines) g.lines = true;
      hooks.setGlobals(g);
    });

  const groups = new Map<string, Command>();
  const parentOf = (path: string[]): Command => {
    if (path.length === 0) return program;
    const key = path.join(" ");
    let g = groups.get(key);
    if (!g) {
      const decl = GROUPS.find((x) => x.name === key);
      g = parentOf(path.slice(0, -1)).command(path[path.length - 1]!).description(decl?.description ?? "");
      groups.set(key, g);
    }
    return g;
  };

  for (const decl of COMMANDS) {
    const path = decl.name.split(" ");
    if (words && !words.has(path[0]!) && !decl.aliases?.some((a) => words.has(a))) continue;
    const leaf = path[path.length - 1]!;
    const cmd = parentOf(path.slice(0, -1)).command(decl.args ? `${leaf} ${decl.args}` : leaf).description(decl.description);
    for (const a of cmd.registeredArguments) a.description = decl.argHelp?.[a.name()] ?? a.description;
    if (decl.usage) cmd.usage(decl.usage);
    if (decl.aliases?.length) cmd.aliases([...decl.aliases]);
    for (const d of Object.values(decl.options ?? {})) cmd.addOption(toOption(d));
    if (decl.helpAfter) cmd.addHelpText("after", decl.helpAfter);
    cmd.addHelpText("after", examplesHelp(decl.examples));
    cmd.action(async (...a: unknown[]) => {
      const self = a[a.length - 1] as Command;
      const positional = a.slice(0, -2) as Positional;
      const parsed = flagsSchema(decl.options).safeParse(self.opts());
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ServiceInvalidArgumentError(`${flagOf(decl.options, issue?.path[0])}: ${issue?.message ?? "invalid value"}`);
      }
      await hooks.dispatch(decl, (stop) => {
        const ctx: RunContext = { globals: hooks.globals(), name: self.name(), rawArgs: self.args, stop, version: hooks.version };
        return decl.run(ctx, positional, parsed.data as never);
      }, parsed.data);
    });
  }
  return program;
}
