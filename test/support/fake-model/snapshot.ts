/**
 * Reading the prompt the way a (very literal) model would: the user message layout of
 * src/operations/prompts.ts, the snapshot outline's lines, and word-overlap scoring between an instruction
 * and an element.
 */

export interface PromptParts {
  /** Text after `Instruction: `; "" for `(none)`; undefined when the message has no Instruction line. */
  instruction: string | undefined;
  /** Variable names from the `Variables:` line (without the %). */
  variables: string[];
  /** Lines between the Instruction/Variables lines and `Page:` (e.g. the two-step or self-heal note). */
  note: string | undefined;
  /** The URL on the `Page:` line. */
  url: string | undefined;
  /** The snapshot outline (everything after the `Page:` line). */
  snapshot: string;
}

/** One snapshot line. Ref lines (`e12 role name…`) are elements; others are text/structure lines. */
export interface SnapLine {
  index: number;
  depth: number;
  /** The trimmed line. */
  text: string;
  ref?: string;
  role?: string;
  /** Accessible name (states and `: value` removed). */
  name?: string;
  value?: string;
  /** Options of a native select (from the following `options:` line). */
  options?: string[];
  /** Text of the enclosing non-ref lines (e.g. `iframe Payment`), outermost first. */
  context: string[];
}

export function parsePrompt(userText: string): PromptParts {
  const lines = userText.split("\n");
  const start = lines.findIndex((l) => l.startsWith("Instruction: "));
  if (start < 0) return { instruction: undefined, variables: [], note: undefined, url: undefined, snapshot: "" };
  const raw = lines[start]!.slice("Instruction: ".length).trim();
  const instruction = raw === "(none)" ? "" : raw;
  let page = lines.findIndex((l, i) => i > start && l.startsWith("Page: "));
  if (page < 0) page = lines.length;
  const variables: string[] = [];
  const notes: string[] = [];
  for (const line of lines.slice(start + 1, page)) {
    if (line.startsWith("Variables: ")) for (const m of line.matchAll(/%([^%\s]+)%/g)) variables.push(m[1]!);
    else if (line.trim()) notes.push(line);
  }
  return {
    instruction,
    variables,
    note: notes.length ? notes.join("\n") : undefined,
    url: page < lines.length ? lines[page]!.slice("Page: ".length).trim() : undefined,
    snapshot: lines.slice(page + 1).join("\n"),
  };
}

const REF_LINE = /^(e\d+)\s+(\S+)\s*(.*)$/;

export function parseSnapshot(snapshot: string): SnapLine[] {
  const out: SnapLine[] = [];
  const stack: Array<{ depth: number; text: string }> = [];
  for (const rawLine of snapshot.split("\n")) {
    const text = rawLine.trim();
    if (!text) continue;
    const depth = rawLine.length - rawLine.trimStart().length;
    while (stack.length && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const prev = out[out.length - 1];
    if (text.startsWith("options:") && prev?.ref && depth > prev.depth) {
      prev.options = text.slice("options:".length).split(" | ").map((o) => o.trim()).filter(Boolean);
      continue;
    }
    const line: SnapLine = { index: out.length, depth, text, context: stack.map((s) => s.text) };
    const m = REF_LINE.exec(text);
    if (m) {
      line.ref = m[1]!;
      line.role = m[2]!;
      let rest = m[3]!.replace(/(\s*\[[^\]]*\])+$/, "");
      const colon = rest.indexOf(": ");
      if (colon >= 0) {
        line.value = rest.slice(colon + 2).trim();
        rest = rest.slice(0, colon);
      } else if (rest.endsWith(":")) rest = rest.slice(0, -1);
      line.name = rest.trim();
    }
    out.push(line);
    stack.push({ depth, text: line.ref ? `${line.role} ${line.name}` : text });
  }
  return out;
}

export const elements = (lines: SnapLine[]): SnapLine[] => lines.filter((l) => l.ref);

/** A line's readable text: a ref line's name (and value), a text line without its heading marker. */
export function lineText(line: SnapLine): string {
  if (line.ref) return line.value ? `${line.name}: ${line.value}` : (line.name ?? "");
  return line.text.replace(/^h\d\s+/, "");
}

const STOP = new Set(
  "a an the to into in on of for with and or at by from this that it its is are be please then me my your our their there here".split(" "),
);
/** Verbs that say what to do, not what to do it on. */
export const VERBS = new Set(
  "click tap press hit push hover double doubleclick type enter fill write select choose pick scroll find get extract read tell what which show check tick toggle open".split(
    " ",
  ),
);

export function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}@]+/u)
    .filter((w) => w && !STOP.has(w));
}

/** Words of the instruction that describe a target (verbs dropped). */
export function targetWords(s: string): string[] {
  return [...new Set(words(s).filter((w) => !VERBS.has(w)))];
}

const ROLE_ALIASES: Record<string, string[]> = {
  textbox: ["field", "input", "box", "textbox", "text", "textarea"],
  searchbox: ["field", "input", "box", "search", "searchbox"],
  combobox: ["dropdown", "select", "combobox", "combo", "menu", "list"],
  listbox: ["dropdown", "list", "listbox", "menu"],
  checkbox: ["checkbox", "check", "box"],
  radio: ["radio", "option"],
  link: ["link", "anchor"],
  button: ["button", "btn"],
  option: ["option", "item"],
  menuitem: ["menu", "item", "option"],
  tab: ["tab"],
  slider: ["slider", "range"],
  spinbutton: ["field", "input", "number", "spinbutton"],
};

function near(a: string, b: string): boolean {
  return a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a));
}

/**
 * How well an element fits the words: 1 per word in its name (½ when only a prefix matches), ½ for a word
 * in its value, ½ for a word naming its role, ¼ for a word of an enclosing line (iframe, list…), +1 when the
 * whole name appears in the phrase, and a hair less for every name word the instruction did not mention.
 * `matched` is the part that came from real word matches (0 → nothing fits).
 */
export function scoreElement(el: SnapLine, target: string[], phrase: string): { score: number; matched: number } {
  const nameWords = words(el.name ?? "");
  const valueWords = words(el.value ?? "");
  const roleWords = [el.role?.toLowerCase() ?? "", ...(ROLE_ALIASES[el.role?.toLowerCase() ?? ""] ?? [])];
  const contextWords = words(el.context.join(" "));
  let matched = 0;
  let roleHit = false;
  for (const w of target) {
    if (nameWords.includes(w)) matched += 1;
    else if (nameWords.some((n) => near(n, w))) matched += 0.5;
    else if (valueWords.includes(w)) matched += 0.5;
    else if (contextWords.includes(w)) matched += 0.25;
    if (roleWords.some((r) => r === w || near(r, w))) roleHit = true;
  }
  let score = matched + (roleHit ? 0.5 : 0);
  const name = (el.name ?? "").toLowerCase().trim();
  if (name && ` ${phrase.toLowerCase()} `.includes(` ${name} `)) score += 1;
  score -= 0.01 * nameWords.filter((n) => !target.includes(n)).length;
  return { score, matched: matched + (roleHit ? 0.01 : 0) };
}

/** Elements ranked best first (stable: ties keep document order). */
export function rank(els: SnapLine[], target: string[], phrase: string): Array<{ el: SnapLine; score: number; matched: number }> {
  return els
    .map((el) => ({ el, ...scoreElement(el, target, phrase) }))
    .sort((a, b) => b.score - a.score || a.el.index - b.el.index);
}

/** Plain lines (text and elements) ranked by word overlap with `target`. */
export function rankLines(lines: SnapLine[], target: string[]): Array<{ line: SnapLine; score: number }> {
  return lines
    .map((line) => {
      const ws = words(line.ref ? `${line.role} ${lineText(line)}` : line.text);
      let score = 0;
      for (const w of target) if (ws.includes(w)) score += 1;
      else if (ws.some((n) => near(n, w))) score += 0.5;
      return { line, score };
    })
    .sort((a, b) => b.score - a.score || a.line.index - b.line.index);
}
