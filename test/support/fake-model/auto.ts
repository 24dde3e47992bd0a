/**
 * The fake model's automatic answers: read the instruction and the snapshot in the prompt, pick the
 * element whose words best match, infer the method from the instruction's verb. Deterministic and dumb on
 * purpose: good enough to drive the fixture pages, simple enough to predict in a test.
 */
import { elements, lineText, parsePrompt, parseSnapshot, rank, rankLines, targetWords, type PromptParts, type SnapLine } from "./snapshot.js";

type JsonSchema = Record<string, unknown>;

export interface AutoRequest {
  /** `act`, `observe`, `extract`, or any other schema/tool name (answered from the schema). */
  operation: string | undefined;
  schema: JsonSchema | undefined;
  /** The user message carrying the prompt layout (Instruction:, Variables:, Page:, snapshot). */
  promptText: string;
}

export interface ActionReply {
  ref: string;
  method: string;
  arguments: string[];
  description: string;
}

interface Intent {
  method: "click" | "doubleClick" | "hover" | "press" | "scrollTo" | "select" | "fill" | "dragAndDrop";
  args: string[];
  /** The instruction with the argument text taken out: what is left names the target. */
  target: string;
  /** For select: the option's text. */
  option?: string;
  /** For dragAndDrop: what names the drop target. */
  dropTarget?: string;
}

const VERB_METHOD: Record<string, Intent["method"]> = {
  click: "click", tap: "click", push: "click", check: "click", tick: "click", toggle: "click", open: "click",
  double: "doubleClick", doubleclick: "doubleClick", dblclick: "doubleClick",
  hover: "hover",
  press: "press", hit: "press",
  scroll: "scrollTo",
  drag: "dragAndDrop",
  select: "select", choose: "select", pick: "select",
  type: "fill", enter: "fill", fill: "fill", write: "fill", input: "fill",
};

const KEYS: Record<string, string> = { enter: "Enter", return: "Enter", tab: "Tab", escape: "Escape", esc: "Escape", space: "Space", backspace: "Backspace", delete: "Delete" };

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function parseIntent(instruction: string): Intent {
  const quoted = /"([^"]*)"|“([^”]*)”|(?:^|\s)'([^']*)'(?=$|[\s.,;:!?])/.exec(instruction);
  const q = quoted ? (quoted[1] ?? quoted[2] ?? quoted[3]) : undefined;
  const rest = quoted ? instruction.replace(quoted[0], " ") : instruction;
  const tokens = rest.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  const verb = tokens.find((t) => t in VERB_METHOD);
  const method = verb ? VERB_METHOD[verb]! : "click";
  const afterVerb = (stops: string): RegExpExecArray | null => (verb ? new RegExp(`\\b${esc(verb)}\\s+(.+?)(?:\\s+(?:${stops})\\s+|$)`, "i").exec(rest) : null);
  switch (method) {
    case "press": {
      const m = verb ? new RegExp(`\\b${esc(verb)}\\s+(?:the\\s+)?(\\S+)`, "i").exec(rest) : null;
      const word = q ?? m?.[1]?.replace(/[.,;:!?]+$/, "") ?? "Enter";
      const key = KEYS[word.toLowerCase()] ?? (/[A-Z]/.test(word) ? word : word.charAt(0).toUpperCase() + word.slice(1));
      return { method, args: [key], target: q ? rest : rest.replace(m?.[1] ?? "", " ") };
    }
    case "scrollTo": {
      const pct = /(\d+(?:\.\d+)?)\s*%/.exec(instruction)?.[1];
      const arg = pct ? `${pct}%` : /\b(bottom|end)\b/i.test(instruction) ? "100%" : /\b(top|start)\b/i.test(instruction) ? "0%" : "50%";
      return { method, args: [arg], target: rest.replace(/\d+(?:\.\d+)?\s*%/, " ") };
    }
    case "select": {
      const m = afterVerb("from|in|on|for|of");
      const option = q ?? m?.[1]?.replace(/^(?:the|an?)\s+/i, "").replace(/\s+option$/i, "");
      return { method, args: option ? [option] : [], option, target: q || !m ? rest : rest.replace(m[1]!, " ") };
    }
    case "dragAndDrop": {
      const m = /\bdrag\s+(.+?)\s+(?:to|onto|into|on|over)\s+(.+)$/i.exec(rest);
      return m ? { method, args: [], target: m[1]!, dropTarget: m[2]! } : { method, args: [], target: rest };
    }
    case "fill": {
      const variable = /%([^%\s]+)%/.exec(instruction);
      if (q !== undefined) return { method, args: [q], target: rest };
      if (variable) return { method, args: [`%${variable[1]}%`], target: instruction.replace(/%/g, " ") };
      const withTail = /\bwith\s+(.+)$/i.exec(rest);
      if (withTail) return { method, args: [withTail[1]!.trim()], target: rest.slice(0, withTail.index) };
      const m = afterVerb("into|in|on|to|as");
      if (m && m[0].length < rest.length - (m.index ?? 0)) return { method, args: [m[1]!], target: rest.replace(m[1]!, " ") };
      const last = rest.trim().split(/\s+/).pop() ?? "";
      return { method, args: [last], target: rest };
    }
    default:
      return { method, args: [], target: rest };
  }
}

const OPTION_ROLES = new Set(["option", "menuitem", "menuitemradio", "menuitemcheckbox", "treeitem", "radio", "tab"]);

function describe(el: SnapLine): string {
  return `${el.role} ${el.name}`.trim();
}

function matchOption(options: string[], wanted: string | undefined): string {
  if (!wanted) return options[0] ?? "";
  const w = wanted.toLowerCase();
  return options.find((o) => o.toLowerCase() === w) ?? options.find((o) => o.toLowerCase().includes(w) || w.includes(o.toLowerCase())) ?? wanted;
}

/** The action an intent means on a given element. */
function actionFor(el: SnapLine, it: Intent): ActionReply {
  if (it.method === "select") {
    if (el.options) return { ref: el.ref!, method: "selectOptionFromDropdown", arguments: [matchOption(el.options, it.option)], description: describe(el) };
    return { ref: el.ref!, method: "click", arguments: [], description: describe(el) };
  }
  return { ref: el.ref!, method: it.method, arguments: it.args, description: describe(el) };
}

export function answerAct(p: PromptParts): ActionReply & { twoStep: boolean } {
  const els = elements(parseSnapshot(p.snapshot));
  const it = parseIntent(p.instruction ?? "");
  if (it.method === "select" && it.option) {
    const wanted = it.option.toLowerCase();
    const opts = els.filter((e) => OPTION_ROLES.has(e.role!));
    const option =
      opts.find((e) => e.name!.toLowerCase() === wanted) ??
      opts.find((e) => e.name!.toLowerCase().includes(wanted)) ??
      opts.find((e) => e.name && ` ${wanted} `.includes(` ${e.name.toLowerCase()} `));
    if (option) return { ref: option.ref!, method: "click", arguments: [], description: describe(option), twoStep: false };
  }
  let [best] = rank(els, targetWords(it.target), it.target);
  if (it.method === "select" && !(best && best.matched > 0)) [best] = rank(els, targetWords(p.instruction ?? ""), p.instruction ?? "");
  const wanted = it.option?.toLowerCase();
  const native = wanted ? els.find((e) => e.options?.some((o) => o.toLowerCase().includes(wanted))) : undefined;
  const fallback = it.method === "press" || it.method === "scrollTo" ? els[0] : native;
  const el = best && best.matched > 0 ? best.el : fallback;
  if (!el) return { ref: "", method: it.method === "select" ? "click" : it.method, arguments: [], description: `no element matches "${p.instruction ?? ""}"`, twoStep: false };
  const action = actionFor(el, it);
  if (it.method === "dragAndDrop") {
    const [drop] = rank(els.filter((e) => e !== el), targetWords(it.dropTarget ?? ""), it.dropTarget ?? "");
    action.arguments = drop && drop.matched > 0 ? [drop.el.ref!] : [];
  }
  const dropdownAlreadyOpen = /opened a dropdown/i.test(p.note ?? "");
  return { ...action, twoStep: it.method === "select" && !el.options && !dropdownAlreadyOpen };
}

export function answerObserve(p: PromptParts, limit = 3): { elements: ActionReply[] } {
  const els = elements(parseSnapshot(p.snapshot));
  const it = parseIntent(p.instruction ?? "");
  const ranked = rank(els, targetWords(it.target), it.target);
  // Elements whose own words match; only when none do, those that just have the named role.
  const byName = ranked.filter((r) => r.matched >= 0.25);
  const picked = !p.instruction ? els : (byName.length ? byName : ranked.filter((r) => r.matched > 0)).map((r) => r.el);
  return { elements: picked.slice(0, limit).map((el) => actionFor(el, it)) };
}

// ——— extract ———

function isExtractionSchema(schema: JsonSchema | undefined): boolean {
  const props = schema?.properties as JsonSchema | undefined;
  return !schema || (!!props && Object.keys(props).length === 1 && "extraction" in props);
}

function stripRef(line: SnapLine): string {
  return line.ref ? line.text.slice(line.ref.length).trim() : line.text;
}

export function answerExtraction(p: PromptParts): { extraction: string } {
  const lines = parseSnapshot(p.snapshot);
  const ranked = rankLines(lines, targetWords(p.instruction ?? ""));
  const top = ranked[0]?.score ?? 0;
  if (top <= 0) return { extraction: p.snapshot };
  const best = ranked.filter((r) => r.score === top).map((r) => r.line).sort((a, b) => a.index - b.index);
  return { extraction: best.map(stripRef).join("\n") };
}

const keyWords = (key: string): string => key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
const REFISH = /\b(ref|refs|link|links|url|urls|href|uri)\b/i;

interface GenContext {
  root: JsonSchema;
  lines: SnapLine[];
  instruction: string;
}

function pickLink(ctx: GenContext, hint: string): string {
  const els = elements(ctx.lines);
  const links = els.filter((e) => e.role === "link");
  const pool = links.length ? links : els;
  const [best] = rank(pool, targetWords(`${hint} ${ctx.instruction}`), hint);
  return best?.el.ref ?? "";
}

function pickText(ctx: GenContext, hint: string): string {
  const [best] = rankLines(ctx.lines, targetWords(`${hint} ${ctx.instruction}`));
  if (best && best.score > 0) return lineText(best.line);
  const text = ctx.lines.find((l) => !l.ref) ?? ctx.lines[0];
  return text ? lineText(text) : "";
}

function resolveRef(ctx: GenContext, ref: string): JsonSchema | undefined {
  if (ref === "#") return ctx.root;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  return m ? ((ctx.root[m[1]!] as Record<string, JsonSchema> | undefined)?.[decodeURIComponent(m[2]!)] ?? undefined) : undefined;
}

function generate(schema: unknown, key: string, ctx: GenContext, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 12) return null;
  let s = schema as JsonSchema;
  if (typeof s.$ref === "string") return generate(resolveRef(ctx, s.$ref), key, ctx, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const k of ["anyOf", "oneOf", "allOf"] as const) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.length) {
      const pick = (alts as JsonSchema[]).find((a) => a && a.type !== "null") ?? alts[0];
      s = { ...s, ...(pick as JsonSchema), [k]: undefined };
      if (typeof s.$ref === "string") return generate(resolveRef(ctx, s.$ref), key, ctx, depth + 1);
    }
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  const type = types.find((t) => t !== "null") ?? types[0] ?? (s.properties ? "object" : s.items ? "array" : "string");
  const hint = `${keyWords(key)} ${typeof s.description === "string" ? s.description : ""}`;
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, generate(v, k, ctx, depth + 1)]));
    }
    case "array": {
      if (s.maxItems === 0) return [];
      const n = Math.max(1, typeof s.minItems === "number" ? s.minItems : 1);
      return Array.from({ length: n }, () => generate(s.items ?? {}, key, ctx, depth + 1));
    }
    case "integer":
    case "number":
      if (typeof s.minimum === "number") return s.minimum;
      if (typeof s.exclusiveMinimum === "number") return type === "integer" ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + 1;
      return 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return s.format === "uri" || s.format === "url" || REFISH.test(hint) ? pickLink(ctx, keyWords(key)) : pickText(ctx, hint);
  }
}

export function answerExtract(p: PromptParts, schema: JsonSchema | undefined): unknown {
  if (isExtractionSchema(schema)) return answerExtraction(p);
  return generate(schema, "", { root: schema!, lines: parseSnapshot(p.snapshot), instruction: p.instruction ?? "" });
}

/** The automatic answer for a request: act, observe, extract by name; any other schema → a minimal valid object. */
export function autoAnswer(req: AutoRequest): unknown {
  const p = parsePrompt(req.promptText);
  switch (req.operation) {
    case "act":
      return answerAct(p);
    case "observe":
      return answerObserve(p);
    case "extract":
      return answerExtract(p, req.schema);
    default:
      return req.schema ? answerExtract(p, req.schema) : answerAct(p);
  }
}
