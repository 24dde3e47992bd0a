/**
 * Finding elements the way a person names them (src/browser/find.ts): role and name, text, label, placeholder,
 * data-testid, in every frame. A match is named by its ref when the door's snapshot shows it (find takes one), else
 * its XPath. On the CLI an ACTION runs an element verb (click, fill …) on the one match, as `svc <verb>` runs it.
 */
import { z } from "zod";
import { ServiceElementNotFoundError, ServiceInvalidArgumentError } from "../errors.js";
import type { Page } from "../index.js";
import type { ElementHandle, FindQuery } from "../internal.js";
import { FIND_KINDS } from "../util/find-kinds.js";
import { type CliVerb, cliInput, cliVerbs, positionalNames } from "./cli-door.js";
import { type CapabilityContext, capability, type Outcome, readOnly, type Spell, type TakenSnapshot } from "./declare.js";
import { ELEMENT_CAPABILITIES } from "./element.js";

/** Matches listed without first/nth (the total is always said). */
const LIST_LIMIT = 20;
const MAX_NTH = 1000;
const MAX_VALUE_CHARS = 1000;

/** The verbs an ACTION may name: those whose first argument is the target, and whether each takes a value. */
const ACTIONS: ReadonlyMap<string, { verb: CliVerb; takes: "value" | "none" }> = new Map(
  cliVerbs(ELEMENT_CAPABILITIES)
    .filter((v) => !v.capability.cli?.positional && positionalNames(v.capability)[0] === "target")
    .map((v) => [v.verb, { verb: v, takes: positionalNames(v.capability).length > 1 ? "value" : "none" }]),
);

/** The actions as help names them: `click`, `fill V`. */
const ACTION_WORDS = [...ACTIONS].map(([v, a]) => (a.takes === "value" ? `${v} V` : v)).join(", ");

const NTH_EXPECTED = `must be a whole number from 1 to ${MAX_NTH}`;

type FindInput = { by: FindQuery["kind"]; value: string; name?: string | undefined; exact?: boolean | undefined; first?: boolean | undefined; nth?: number | undefined; action?: string[] | undefined };

/** The action's problem (an unknown verb, its value missing or one too many), else undefined. */
function actionProblem(action: readonly string[]): string | undefined {
  const [verb, ...args] = action as [string, ...string[]];
  const takes = ACTIONS.get(verb)?.takes;
  if (!takes) return `unknown action "${verb.slice(0, 40)}" (one of ${[...ACTIONS.keys()].join(", ")})`;
  if (takes === "value" && args.length === 0) return `${verb}: the value is missing (svc find label Email ${verb} "ada@example.com")`;
  const most = takes === "value" ? 1 : 0;
  return args.length > most ? `${verb}: unexpected argument "${String(args[most]).slice(0, 40)}" (quote a value that has spaces)` : undefined;
}

function check(i: FindInput, spell: Spell): string | undefined {
  if (!i.value.trim()) return `${spell("value")} is blank`;
  if (i.name !== undefined && i.by !== "role") return `${spell("name")} applies to find role, not find ${i.by}`;
  if (i.name !== undefined && !i.name.trim()) return `${spell("name")} is blank`;
  if (i.first && i.nth !== undefined) return `${spell("first")} and ${spell("nth")}: give one`;
  if (i.nth !== undefined && !(Number.isInteger(i.nth) && i.nth >= 1 && i.nth <= MAX_NTH)) return `${spell("nth")} ${NTH_EXPECTED}, got ${i.nth}`;
  return i.action ? actionProblem(i.action) : undefined;
}

/** `role "button" --name "Save"` (MCP: `name "Save"`), as messages name the query. */
function described(q: FindQuery, spell: Spell): string {
  return `${q.kind} "${q.value}"${q.name !== undefined ? ` ${spell("name")} "${q.name}"` : ""}`;
}

interface Match {
  /** What later calls take: the ref, else the XPath selector. */
  target: string;
  ref?: string;
  tag: string;
  text: string;
}

/** The door's snapshot (its refs name the matches); a door with no ref store (a cloud session) names them by XPath. */
async function refsOf(ctx: CapabilityContext, page: Page): Promise<TakenSnapshot | undefined> {
  try {
    return await ctx.snapshot(page, { interactiveOnly: true });
  } catch (e) {
    if (e instanceof ServiceInvalidArgumentError) return undefined;
    throw e;
  }
}

/** The snapshot's icon-only controls whose derived name matches a `role` + name query, beside Chrome's own matches. */
async function derivedMatches(page: Page, snap: TakenSnapshot | undefined, q: FindQuery, found: readonly ElementHandle[]): Promise<ElementHandle[]> {
  if (q.kind !== "role" || q.name === undefined || !snap) return [];
  const { resolveTarget } = await import("../internal.js");
  const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
  const want = norm(q.name);
  const seen = new Set(await Promise.all(found.map(async (e) => `${e.frame.id}:${await e.backendNodeId}`)));
  const out: ElementHandle[] = [];
  for (const t of snap.refs) {
    if (!t.derived || t.role !== q.value.trim() || seen.has(`${t.frameId}:${t.backendNodeId}`)) continue;
    const name = norm(t.name);
    if (q.exact ? name === want : name.includes(want)) out.push(await resolveTarget(page, t.ref, snap.refs));
  }
  return out;
}

/** Each element as a match: its target, tag and text (a field's value, never a password's; the door's secrets masked). */
async function matchesOf(ctx: CapabilityContext, page: Page, snap: TakenSnapshot | undefined, elements: readonly ElementHandle[]): Promise<Match[]> {
  const { callOn, selectorOf } = await import("../internal.js");
  const matches: Match[] = [];
  for (const el of elements) {
    const ref = snap?.refs.findByNode(el.frame.id, await el.backendNodeId)?.ref;
    const about = await callOn<{ tag: string; text: string }>(el, function (this: Element) {
      const field = this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement;
      const value = field && !(this instanceof HTMLInputElement && this.type === "password") ? this.value : "";
      const t = (field ? value || this.placeholder : ((this as HTMLElement).innerText ?? this.textContent ?? "")).replace(/\s+/g, " ").trim();
      return { tag: this.localName, text: t.length > 80 ? `${t.slice(0, 77)}...` : t };
    });
    matches.push({ target: ref ?? (await selectorOf(page.frames, el)), ...(ref ? { ref } : {}), tag: about.tag, text: ctx.svc.secrets.text(about.text) });
  }
  return matches;
}

const line = (m: Match) => `${m.target}  ${m.tag}${m.text ? ` "${m.text}"` : ""}`;

/** The matches as lines: bare on the CLI (a shell reads one target a line; `--json` says the total), under a count on MCP. */
function listed(ctx: CapabilityContext, q: FindQuery, total: number, matches: readonly Match[], nth: number | undefined): Outcome {
  const data = { by: q.kind, value: q.value, total, matches };
  if (total === 0) {
    const failure = new ServiceElementNotFoundError(`find ${described(q, ctx.spell)}: no element matches`, { hint: "look at the page with `svc snapshot`" });
    // A search that found nothing is an answer on MCP; the CLI fails with it (exit 6) unless --json.
    return { kind: "report", text: `no element matches ${described(q, ctx.spell)}`, data, failure };
  }
  const head = ctx.door === "mcp" ? [`${total} match${total === 1 ? "" : "es"}${nth !== undefined ? ` (number ${nth} shown)` : ""}; each ref or selector works as a target:`] : [];
  const more = total > matches.length && nth === undefined ? [`(${total - matches.length} more not listed; use ${ctx.spell("nth")} N)`] : [];
  return { kind: "report", text: [...head, ...matches.map(line), ...more].join("\n"), data };
}

/** The CLI's ACTION on the one match: the element verb's own capability, given the match's target as `svc <verb>` is. */
async function acted(ctx: CapabilityContext, q: FindQuery, total: number, match: Match, action: readonly string[]): Promise<Outcome> {
  const [name, ...args] = action as [string, ...string[]];
  const verb = ACTIONS.get(name)!.verb;
  const outcome = await verb.capability.run(ctx, cliInput(verb, [match.target, ...args], {}) as never);
  if (outcome.kind !== "act") throw new Error(`find: ${name} is not an action`);
  // A failed act is the door's to report, as the verb's own would be (the CLI: exit 1).
  if (!outcome.result.success) return outcome;
  const text = `done: ${name} ${match.target} (${match.tag}${match.text ? ` "${match.text}"` : ""})`;
  return { kind: "report", text, data: { by: q.kind, value: q.value, total, match, result: outcome.result }, pageChanged: true };
}

export const find = capability({
  name: "find",
  description: "Find elements by role (and name), visible text, label, placeholder or test id; a target for each",
  input: {
    by: z.enum(FIND_KINDS, { error: (iss) => `unknown locator ${JSON.stringify(String(iss.input).slice(0, 40))} (one of ${FIND_KINDS.join(", ")})` }).describe("how to find: role, text, label, placeholder or testid"),
    value: z.string().min(1).max(MAX_VALUE_CHARS).describe("the role (button, link…), text, label, placeholder or test id"),
    name: z.string().min(1).max(MAX_VALUE_CHARS).optional().describe("with role: the accessible name it contains (case-insensitive)"),
    exact: z.boolean().optional().describe("the text, label, placeholder or name must equal the value (case-insensitive), not just contain it"),
    first: z.boolean().optional().describe("take the first match when several match"),
    nth: z.number({ error: NTH_EXPECTED }).optional().describe(`take the n-th match (1 = the first, at most ${MAX_NTH})`),
    action: z
      .array(z.string().max(1_000_000))
      .min(1)
      .max(2, "an action and at most one argument (quote a value that has spaces)")
      .optional()
      .describe(`ACTION [ARG]: run a verb on the one match (${ACTION_WORDS})`),
  },
  only: { action: { door: "cli", why: "a shell's one command; an MCP client calls the verb's own tool on the target find gave (find stays read-only there)" } },
  mcp: { cap: "devtools", annotations: readOnly("Find elements") },
  cli: {
    verb: "find",
    args: "<by> <value> [action...]",
    usage: "role|text|label|placeholder|testid VALUE [--name N] [--exact] [--first | --nth N] [ACTION [ARG]]",
    description:
      "find elements by accessible role (--name: its accessible name), visible text, label, placeholder or data-testid; prints each match's ref (or XPath) for later commands, or runs ACTION [ARG] on the one match",
    examples: ["svc find role button --name Submit click", 'svc find label Email fill "ada@example.com"', 'svc find text "Read more" --nth 2'],
    hosted: true,
    flags: { name: "--name <name>" },
  },
  check,
  run: async (ctx, i) => {
    const { findElements } = await import("../internal.js");
    const q: FindQuery = { kind: i.by, value: i.value, ...(i.name !== undefined ? { name: i.name } : {}), ...(i.exact ? { exact: true } : {}) };
    const nth = i.first ? 1 : i.nth;
    const page = await ctx.page();
    // The door's snapshot issues (and keeps) the refs a match is named by.
    const snap = await refsOf(ctx, page);
    const limit = Math.max(LIST_LIMIT, nth ?? 0);
    const byTree = await findElements(page.frames, q, limit);
    const derived = await derivedMatches(page, snap, q, byTree.elements);
    const elements = [...byTree.elements, ...derived].slice(0, limit);
    const total = byTree.total + derived.length;
    if (total > 0 && nth !== undefined && nth > total) throw new ServiceElementNotFoundError(`find ${described(q, ctx.spell)}: ${ctx.spell("nth")} ${nth}, but only ${total} match`);
    if (i.action && total === 0) throw new ServiceElementNotFoundError(`find ${described(q, ctx.spell)}: no element matches`, { hint: "look at the page with `svc snapshot`" });
    if (i.action && nth === undefined && total > 1) {
      throw new ServiceInvalidArgumentError(`find ${described(q, ctx.spell)}: ${total} elements match, ${i.action[0]} needs one`, { hint: "add --first or --nth N, --exact, or narrow the value" });
    }
    const matches = await matchesOf(ctx, page, snap, nth !== undefined && total > 0 ? [elements[nth - 1]!] : elements);
    return i.action ? acted(ctx, q, total, matches[0]!, i.action) : listed(ctx, q, total, matches, nth);
  },
});
