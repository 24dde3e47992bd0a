/**
 * `svc find role|text|label|placeholder|testid VALUE … [ACTION [ARG]]` (docs/cli.md): finds elements the way a person
 * names them (src/browser/find.ts). Each match is printed with a target later commands take: its ref when the session's
 * snapshot shows it (find takes one, so refs are the session's), else its XPath. With ACTION the verb runs on the one
 * match as `svc <verb>` runs it.
 */
import type { Page } from "../../src/index.js";
import { ServiceElementNotFoundError, ServiceInvalidArgumentError, isCloud } from "../../src/base.js";
import { FIND_KINDS, type ElementHandle, type FindKind, type FindQuery, callOn, findElements, resolveTarget, selectorOf } from "../../src/internal.js";
import { ActFailedError } from "../core/errors.js";
import type { GlobalOptions } from "../core/output.js";
import { capabilityContext } from "./context.js";
import { withSession } from "../core/runtime.js";
import { sessionSnapshots } from "../page/snapshot.js";
import { type CliVerb, CAPABILITIES, cliInput, cliVerbs, positionalNames } from "../../src/capabilities/index.js";

export interface FindFlags {
  name?: string;
  exact?: boolean;
  first?: boolean;
  nth?: string;
}

/** The verbs find may run on its match: those whose first argument is the target, and whether each takes a value. */
const ACTIONS: ReadonlyMap<string, { verb: CliVerb; takes: "value" | "none" }> = new Map(
  cliVerbs(CAPABILITIES)
    .filter((v) => !v.capability.cli?.positional && positionalNames(v.capability)[0] === "target")
    .map((v) => [v.verb, { verb: v, takes: positionalNames(v.capability).length > 1 ? "value" : "none" }]),
);

/** Matches listed without --first/--nth (the total is always said). */
const LIST_LIMIT = 20;
const MAX_NTH = 1000;
const MAX_VALUE_CHARS = 1000;

interface Parsed {
  query: FindQuery;
  /** 1-based, when one match is picked. */
  nth?: number;
  action?: { verb: string; arg?: string };
}

function parse(by: string, value: string | undefined, rest: readonly string[], flags: FindFlags): Parsed {
  if (!(FIND_KINDS as readonly string[]).includes(by)) throw new ServiceInvalidArgumentError(`find: unknown locator "${by}"`, { hint: `one of ${FIND_KINDS.join(", ")}` });
  if (!value?.trim()) throw new ServiceInvalidArgumentError(`find ${by}: the value is missing`, { hint: `svc find ${by} ${by === "role" ? "button --name Save" : '"Save"'}` });
  if (value.length > MAX_VALUE_CHARS) throw new ServiceInvalidArgumentError(`find ${by}: the value is longer than ${MAX_VALUE_CHARS} characters`);
  if (flags.name !== undefined && by !== "role") throw new ServiceInvalidArgumentError(`--name applies to find role, not find ${by}`);
  if (flags.name !== undefined && !flags.name.trim()) throw new ServiceInvalidArgumentError("--name is empty");
  if (flags.first && flags.nth !== undefined) throw new ServiceInvalidArgumentError("--first and --nth: give one");
  let nth: number | undefined = flags.first ? 1 : undefined;
  if (flags.nth !== undefined) {
    nth = Number(flags.nth);
    if (!/^\d+$/.test(flags.nth.trim()) || nth < 1 || nth > MAX_NTH) throw new ServiceInvalidArgumentError(`--nth must be a whole number from 1 to ${MAX_NTH}, got "${flags.nth}"`);
  }
  const query: FindQuery = { kind: by as FindKind, value, ...(flags.name !== undefined ? { name: flags.name } : {}), ...(flags.exact ? { exact: true } : {}) };
  const [verb, ...args] = rest;
  if (verb === undefined) return { query, ...(nth !== undefined ? { nth } : {}) };
  const takes = ACTIONS.get(verb)?.takes;
  if (!takes) throw new ServiceInvalidArgumentError(`find: unknown action "${verb}"`, { hint: `one of ${[...ACTIONS.keys()].join(", ")}` });
  if (takes === "value" && args.length === 0) throw new ServiceInvalidArgumentError(`find … ${verb}: the value is missing`, { hint: `svc find label Email ${verb} "ada@example.com"` });
  const most = takes === "value" ? 1 : 0;
  if (args.length > most) throw new ServiceInvalidArgumentError(`find … ${verb}: unexpected argument "${args[most]}"`, { hint: "quote a value that has spaces" });
  return { query, ...(nth !== undefined ? { nth } : {}), action: { verb, ...(args[0] !== undefined ? { arg: args[0] } : {}) } };
}

interface Match {
  /** What later commands take: the ref, else the XPath selector. */
  target: string;
  ref?: string;
  tag: string;
  text: string;
}

function describe(q: FindQuery): string {
  return `${q.kind} "${q.value}"${q.name !== undefined ? ` --name "${q.name}"` : ""}`;
}

type Taken = Awaited<ReturnType<ReturnType<typeof sessionSnapshots>["take"]>>;

/** The snapshot's icon-only controls whose derived name matches a `role --name` query, beside Chrome's own matches. */
async function derivedMatches(page: Page, snap: Taken | undefined, q: FindQuery, found: readonly ElementHandle[]): Promise<ElementHandle[]> {
  if (q.kind !== "role" || q.name === undefined || !snap) return [];
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

export async function find(g: GlobalOptions, by: string, value: string | undefined, rest: readonly string[], flags: FindFlags): Promise<void> {
  const p = parse(by, value, rest, flags);
  await withSession(g, async ({ svc, out, session }) => {
    const page: Page = svc.page;
    // The session's snapshot issues (and stores) the refs a match is named by; a cloud session has none.
    const snap = session && !isCloud(session) ? await sessionSnapshots(session).take(page, { interactiveOnly: true }) : undefined;
    const limit = Math.max(LIST_LIMIT, p.nth ?? 0);
    const byTree = await findElements(page.frames, p.query, limit);
    const derived = await derivedMatches(page, snap, p.query, byTree.elements);
    const found = { elements: [...byTree.elements, ...derived].slice(0, limit), total: byTree.total + derived.length };
    if (found.total === 0) throw new ServiceElementNotFoundError(`find ${describe(p.query)}: no element matches`, { hint: "look at the page with `svc snapshot`" });
    if (p.nth !== undefined && p.nth > found.total) throw new ServiceElementNotFoundError(`find ${describe(p.query)}: --nth ${p.nth}, but only ${found.total} match`);
    if (p.action && p.nth === undefined && found.total > 1) {
      throw new ServiceInvalidArgumentError(`find ${describe(p.query)}: ${found.total} elements match, ${p.action.verb} needs one`, { hint: "add --first or --nth N, --exact, or narrow the value" });
    }
    const picked = p.nth !== undefined ? [found.elements[p.nth - 1]!] : found.elements;
    const matches: Match[] = [];
    for (const el of picked) {
      const ref = snap?.refs.findByNode(el.frame.id, await el.backendNodeId)?.ref;
      const about = await callOn<{ tag: string; text: string }>(el, function (this: Element) {
        const t = (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement ? this.value || this.placeholder : (this as HTMLElement).innerText ?? this.textContent ?? "").replace(/\s+/g, " ").trim();
        return { tag: this.localName, text: t.length > 80 ? `${t.slice(0, 77)}...` : t };
      });
      matches.push({ target: ref ?? (await selectorOf(page.frames, el)), ...(ref ? { ref } : {}), ...about });
    }
    if (!p.action) {
      const more = found.total > matches.length && p.nth === undefined ? [`(${found.total - matches.length} more not listed; use --nth N)`] : [];
      out.result({ session: session?.id, by: p.query.kind, value: p.query.value, total: found.total, matches }, () => [
        ...matches.map((m) => `${m.target}  ${m.tag}${m.text ? ` "${m.text}"` : ""}`),
        ...more,
      ]);
      return;
    }
    const match = matches[0]!;
    const verb = ACTIONS.get(p.action.verb)!.verb;
    const input = cliInput(verb, [match.target, ...(p.action.arg !== undefined ? [p.action.arg] : [])], {});
    const outcome = await verb.capability.run(capabilityContext({ g, v: verb, out, session, svc, selected: page }), input as never);
    if (outcome.kind !== "act") throw new Error(`find: ${p.action.verb} is not an action`);
    const result = outcome.result;
    if (!result.success) throw new ActFailedError(`find ${describe(p.query)} ${p.action.verb} failed: ${result.message}`);
    out.result({ session: session?.id, by: p.query.kind, value: p.query.value, total: found.total, match, result }, () => `done: ${p.action!.verb} ${match.target} (${match.tag}${match.text ? ` "${match.text}"` : ""})`);
  });
}
