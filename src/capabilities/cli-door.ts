/**
 * A capability as a CLI verb: flags read from the input's zod shape, positionals named by property, and the
 * command line checked by the same schema the MCP tool uses. Commander-free, so the registry
 * (commands/registry/capabilities.ts) and `svc find … click` share it.
 */
import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../errors.js";
import { type Capability, type CliPreset, type Spell, shapeFor } from "./declare.js";

export type FlagKind = "switch" | "negated" | "value" | "choice" | "optional-choice" | "list" | "record";

/** One CLI flag of a capability's input property. */
export interface CliFlag {
  property: string;
  /** `--max-tokens <n>`, `-n, --num-results <n>`, `--no-redirects` (a switch that defaults to true). */
  flags: string;
  /** The key commander parses the flag into (`maxSize` of `--max-size <MB>`, which may spell property `maxSizeMb`). */
  attribute: string;
  kind: FlagKind;
  choices?: readonly string[];
  /** The property is a number: the flag's text is read as one before the schema checks it. */
  numeric: boolean;
  description: string;
}

/** One verb: a capability's own, or a preset of it (`dblclick`). */
export interface CliVerb {
  verb: string;
  capability: Capability;
  preset?: CliPreset;
  description: string;
  examples: readonly string[];
}

/** The schema under optional/default wrappers. */
function bare(s: z.ZodType): z.ZodType {
  let t = s;
  while (t instanceof z.ZodOptional || t instanceof z.ZodDefault) t = t.unwrap() as z.ZodType;
  return t;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The arguments' names as `args` spells them (`<target-or-key> [key]` → target-or-key, key). */
export function argNames(c: Capability): string[] {
  return [...(c.cli?.args ?? "").matchAll(/[<[]([\w-]+)(?:\.\.\.)?[>\]]/g)].map((m) => m[1]!);
}

/** The properties the positionals name, in order (`<target> <value>` → target, value). */
export function positionalNames(c: Capability): string[] {
  if (c.cli?.fills) return [...c.cli.fills];
  return argNames(c).filter((n) => Object.hasOwn(c.input, n));
}

/** A property's description (what `--help` and the MCP tool say of it). */
export function propertyHelp(c: Capability, name: string): string {
  const s = c.input[name] as z.ZodType | undefined;
  return s ? (s.description ?? bare(s).description ?? "") : "";
}

/** A boolean that is true unless said otherwise: its flag is `--no-x`. */
function defaultsTrue(s: z.ZodType): boolean {
  return s instanceof z.ZodDefault && (s.def.defaultValue as unknown) === true;
}

/** How the CLI reads a property: the kind of flag it would be and whether its text is read as a number. */
export function cliKind(c: Capability, property: string): Pick<CliFlag, "kind" | "numeric" | "choices"> {
  const t = bare(c.input[property] as z.ZodType);
  if (t instanceof z.ZodBoolean) return { kind: defaultsTrue(c.input[property] as z.ZodType) ? "negated" : "switch", numeric: false };
  if (t instanceof z.ZodEnum) return { kind: "choice", choices: t.options as string[], numeric: false };
  // `true` or one of the choices (`--load`, `--load networkidle`): the flag's value may be left out.
  const choices = optionalChoices(t);
  if (choices) return { kind: "optional-choice", choices, numeric: false };
  if (t instanceof z.ZodArray) return { kind: "list", numeric: false };
  if (t instanceof z.ZodRecord) return { kind: "record", numeric: false };
  return { kind: "value", numeric: t instanceof z.ZodNumber };
}

/** The flags: every CLI property that is not a positional, nor set by the verb's preset (`dblclick` has no --double). */
export function cliFlags(c: Capability, preset?: CliPreset): CliFlag[] {
  const positional = new Set(positionalNames(c));
  const presetKeys = new Set(Object.keys({ ...c.cli?.preset, ...preset?.preset }));
  return Object.keys(shapeFor(c, "cli"))
    .filter((k) => !positional.has(k) && !presetKeys.has(k))
    .map((property) => {
      const kind = cliKind(c, property);
      const flag = `--${kebab(property)}`;
      const value = kind.kind === "choice" || kind.kind === "optional-choice" ? kebab(property) : kind.kind === "record" ? "name:value" : kind.numeric ? "n" : "value";
      const flags = c.cli?.flags?.[property] ?? (kind.kind === "switch" ? flag : kind.kind === "negated" ? `--no-${kebab(property)}` : kind.kind === "optional-choice" ? `${flag} [${value}]` : `${flag} <${value}>`);
      return { property, flags, attribute: attributeOf(flags), ...kind, description: propertyHelp(c, property) };
    });
}

/** commander's key of a flags string, from its last long name: `--max-size <MB>` → maxSize, `--no-redirects` → redirects. */
function attributeOf(flags: string): string {
  const long = [...flags.matchAll(/--([\w-]+)/g)].at(-1)?.[1] ?? "";
  return long.replace(/^no-/, "").replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
}

/** A flag's long name as errors name it (`--output` of `-o, --output <file>`; of two, the last, as commander names it: `--var`). */
export function longFlag(f: CliFlag): string {
  return [...f.flags.matchAll(/--[\w-]+/g)].at(-1)?.[0] ?? f.flags;
}

/** The choices of a `true | enum` union, else undefined. */
function optionalChoices(t: z.ZodType): string[] | undefined {
  if (!(t instanceof z.ZodUnion)) return undefined;
  const options = t.options as z.ZodType[];
  const choice = options.find((o) => o instanceof z.ZodEnum);
  const yes = options.find((o) => o instanceof z.ZodLiteral && o.values.has(true));
  return options.length === 2 && choice && yes ? [...(choice.options as string[])] : undefined;
}

/** How the verb names a property in a message: its flag (`--state`), else its argument (`<target>`). */
export function cliSpell(v: CliVerb): Spell {
  const flags = new Map(cliFlags(v.capability, v.preset).map((f) => [f.property, longFlag(f)]));
  return (property) => flags.get(property) ?? `<${property}>`;
}

/** Every verb the capabilities offer on the CLI. */
export function cliVerbs(all: readonly Capability[]): CliVerb[] {
  return all.flatMap((c) =>
    c.cli
      ? [
          { verb: c.cli.verb, capability: c, description: c.cli.description, examples: c.cli.examples },
          ...(c.cli.aliases ?? []).map((a) => ({ verb: a.verb, capability: c, description: a.description, examples: a.examples })),
          ...(c.cli.presets ?? []).map((p) => ({ verb: p.verb, capability: c, preset: p, description: p.description, examples: p.examples })),
        ]
      : [],
  );
}

/** A number flag's text as a number when it is one (else left for the schema to name). */
function numberOf(raw: unknown): unknown {
  return typeof raw === "string" && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
}

/**
 * The command line → the capability's input, checked: positionals by name (variadic ones as a list), flags
 * by property, the verb's preset, then the schema and the capability's own check. The error names the
 * argument (`click: target: …`) or the flag (`invalid --timeout: …`, as the CLI's other commands name a flag).
 */
export function cliInput(v: CliVerb, positional: readonly string[], parsed: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const c = v.capability;
  const byProperty = new Map(cliFlags(c, v.preset).map((f) => [f.property, f]));
  const flags = byProperty.size ? byPropertyName(byProperty, parsed) : parsed;
  const input: Record<string, unknown> = {};
  const names = positionalNames(c);
  const variadic = /\.\.\.[>\]]\s*$/.test(c.cli?.args ?? "");
  if (c.cli?.positional) {
    if (!variadic && positional.length > names.length) throw new ServiceInvalidArgumentError(`${v.verb}: unexpected argument "${positional[names.length]}"`, { hint: "quote a value that has spaces" });
    Object.assign(input, c.cli.positional(positional, flags));
  } else {
    names.forEach((n, i) => {
      const last = i === names.length - 1;
      const v = last && variadic ? positional.slice(i) : positional[i];
      if (v !== undefined && !(Array.isArray(v) && v.length === 0)) input[n] = v;
    });
    const most = variadic ? Infinity : names.length;
    if (positional.length > most) throw new ServiceInvalidArgumentError(`${v.verb}: unexpected argument "${positional[most]}"`, { hint: "quote a value that has spaces" });
  }
  // A positional is text; one whose property is a number is read as one, as a flag's is.
  for (const n of names) if (input[n] !== undefined && cliKind(c, n).numeric) input[n] = numberOf(input[n]);
  for (const [k, raw] of Object.entries(flags)) {
    const f = byProperty.get(k);
    if (f && raw !== undefined) input[k] = f.numeric ? numberOf(raw) : f.kind === "record" ? recordOf(f, raw) : raw;
  }
  Object.assign(input, c.cli?.preset, v.preset?.preset);
  // The whole shape: a preset may set a property the CLI has no flag for (uncheck's checked: false).
  const checked = z.object(c.input).safeParse(input);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const key = String(issue.path[0] ?? "");
    const f = byProperty.get(key);
    // A word that is not one of the choices is named, with the choices (zod's default words name neither).
    const what = input[key] === undefined && !f ? "is missing" : issue.code === "invalid_value" && issue.message.startsWith("Invalid option") && typeof input[key] === "string" ? `one of ${issue.values.join(", ")} (got ${JSON.stringify(String(input[key]).slice(0, 40))})` : issue.message;
    // Named by property, the error is the library's own line (as MCP says it), with no usage hint.
    if (c.cli?.namesProperties) throw new ServiceInvalidArgumentError(`${key}: ${what}`);
    // An argument is named after its verb (`network request id: …`), as a flag by its flag.
    const named = f ? `invalid ${longFlag(f)}: ${what}` : input[key] === undefined ? `${v.verb}: ${key} ${what}` : `${v.verb} ${key}: ${what}`;
    throw new ServiceInvalidArgumentError(named, {
      hint: `svc ${v.verb} ${c.cli?.usage ?? c.cli?.args ?? ""}`.trim(),
    });
  }
  const problem = c.check?.(checked.data as never, cliSpell(v));
  if (problem) throw new ServiceInvalidArgumentError(`${v.verb}: ${problem}`);
  return checked.data;
}

/**
 * The verb's `@FILE` values (CliDoor.files) as those files' bytes, read before any browser; each bounded by its
 * declaration (a file growing between the size check and the read is refused too).
 */
export function cliFiles(v: CliVerb, input: Record<string, unknown>): void {
  const flags = new Map(cliFlags(v.capability, v.preset).map((f) => [f.property, longFlag(f)]));
  for (const [property, { maxBytes }] of Object.entries(v.capability.cli?.files ?? {})) {
    const raw = input[property];
    if (typeof raw !== "string" || !raw.startsWith("@")) continue;
    const flag = flags.get(property) ?? property;
    const file = raw.slice(1);
    const tooLarge = () => new ServiceInvalidArgumentError(`invalid ${flag}: ${file} is larger than ${maxBytes} bytes`);
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new ServiceInvalidArgumentError(`invalid ${flag}: ${file} is not a file`);
      if (st.size > maxBytes) throw tooLarge();
      const bytes = readFileSync(file);
      if (bytes.length > maxBytes) throw tooLarge();
      input[property] = bytes;
    } catch (e) {
      if (e instanceof ServiceInvalidArgumentError) throw e;
      throw new ServiceInvalidArgumentError(`invalid ${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
}

/** A record's repeated `NAME:VALUE` flags as one object (`--header 'X-A: 1'` → { "X-A": "1" }), the last of a name winning. */
function recordOf(f: CliFlag, raw: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  for (const pair of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
    const text = String(pair);
    const colon = text.indexOf(":");
    if (colon <= 0) throw new ServiceInvalidArgumentError(`invalid ${longFlag(f)}: expected NAME:VALUE, got ${JSON.stringify(text.slice(0, 60))}`);
    record[text.slice(0, colon).trim()] = text.slice(colon + 1).trim();
  }
  return record;
}

/** The parsed flags keyed by property (`maxSize` → maxSizeMb where the flag is spelled otherwise); other keys as they are. */
function byPropertyName(flags: ReadonlyMap<string, CliFlag>, parsed: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const property = new Map([...flags.values()].map((f) => [f.attribute, f.property]));
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [property.get(k) ?? k, v]));
}
