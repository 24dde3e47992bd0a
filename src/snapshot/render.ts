/**
 * SnapNode outline → text for a model. Pure. The format is Playwright's aria snapshot with everything that
 * carries nothing taken out (tokens are the cost of every step):
 *
 *   h1 Sign in
 *   e3 textbox Email: ada@example.com
 *   e4 checkbox Remember me [checked]
 *   e5 combobox Country: France
 *     options: United States | France | Japan
 *   Price | Qty | Total
 *   iframe Payment
 *     e7 button Pay
 *
 * One node per line; two spaces of indent per level say what contains what. A line a model can act on
 * starts with its ref; then `role name` without quotes; `: value` for controls holding one; `[state …]`
 * only for states that are set; `(icon)` after a name derived for an icon-only control (icon-name.ts), not its
 * accessible name. A plain text line is just its text; a table row is its cell texts joined by
 * ` | `. Measured with o200k on real pages: ref first without brackets saves ~10% over `[e7]` at the end,
 * and no `- ` bullets another ~10% (indentation already carries the nesting).
 */
import type { SnapNode } from "./tree.js";

export interface RenderOptions {
  /** Token budget: text is shortened, then text lines dropped from the end; ref lines are always kept. */
  maxTokens?: number;
}

export interface Rendered {
  text: string;
  tokens: number;
  /** Lines dropped to meet `maxTokens`. */
  droppedLines: number;
}

/** One output line, kept in parts so the budget can shorten the text without touching the rest. */
interface Line {
  depth: number;
  /** `button `, `h2 `, `` (text) … */
  head: string;
  name: string;
  value: string;
  /** ` [e4 checked]`. */
  tail: string;
  hasRef: boolean;
  /** Has a ref somewhere below it: dropping it would orphan that line's indentation. */
  anchor: boolean;
  dropped: boolean;
}

/**
 * Tokens of a text in o200k terms, without a tokenizer (src/ must not load one: it is megabytes). Modelled on
 * how o200k splits this format: a word with its leading space is one token up to ~8 letters; a run of digits
 * is a token per 3 digits plus one for a space before it; punctuation is a token per 1–2 marks; a line break
 * is one token and an indentation run another. Calibrated against gpt-tokenizer (o200k_base) on snapshots of
 * the fixture pages, node-fs and airline-aa: within 0.94–1.13× of the true count, erring high.
 */
export function estimateTokens(text: string): number {
  let t = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      let j = i + 1;
      while (j < n && isLetter(text.charCodeAt(j))) j++;
      t += Math.ceil((j - i) / 8);
      i = j;
    } else if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      t += Math.ceil((j - i) / 3) + (i > 0 && text.charCodeAt(i - 1) === 32 ? 1 : 0);
      i = j;
    } else if (c === 32) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) === 32) j++;
      if (j - i > 1) t++; // a lone space rides on the next word
      i = j;
    } else if (c === 10 || c > 127) {
      t++;
      i++;
    } else {
      let j = i + 1;
      while (j < n && isPunct(text.charCodeAt(j))) j++;
      t += Math.ceil((j - i) / 2);
      i = j;
    }
  }
  return t;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isPunct(c: number): boolean {
  return c > 32 && c < 127 && !isLetter(c) && !isDigit(c);
}

function tailOf(n: SnapNode): string {
  const mark = n.derived ? " (icon)" : "";
  return n.states?.length ? `${mark} [${n.states.join(" ")}]` : mark;
}

function headOf(n: SnapNode): string {
  const role = roleWord(n);
  if (n.ref === undefined) return role;
  return role ? `${n.ref} ${role}` : n.ref;
}

function roleWord(n: SnapNode): string {
  switch (n.role) {
    case "text":
      return "";
    case "heading":
      return n.level !== undefined ? `h${n.level}` : "heading";
    case "row":
      return n.cells ? "" : "row";
    case "options":
      return "options:";
    default:
      return n.role;
  }
}

function toLines(nodes: readonly SnapNode[], depth: number, out: Line[]): boolean {
  let anyRef = false;
  for (const n of nodes) {
    const line: Line = {
      depth,
      head: headOf(n),
      name: n.role === "row" && n.cells ? n.cells.join(" | ") : n.name.trim(),
      value: n.value ?? "",
      tail: tailOf(n),
      hasRef: n.ref !== undefined,
      anchor: false,
      dropped: false,
    };
    out.push(line);
    const below = n.children.length ? toLines(n.children, depth + 1, out) : false;
    line.anchor = below;
    if (below || line.hasRef) anyRef = true;
  }
  return anyRef;
}

function lineText(l: Line): string {
  let s = "  ".repeat(l.depth) + l.head;
  if (l.name) s += (l.head ? " " : "") + l.name;
  if (l.value) s += ": " + l.value;
  return s + l.tail;
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(1, max - 1)).trimEnd();
  // Do not split a surrogate pair.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + "…";
}

/** Renders the outline; with `maxTokens`, fits it into the budget without ever dropping a ref line. */
export function render(nodes: readonly SnapNode[], options: RenderOptions = {}): Rendered {
  const lines: Line[] = [];
  toLines(nodes, 0, lines);
  const budget = options.maxTokens;
  if (budget === undefined) {
    const text = lines.map(lineText).join("\n");
    return { text, tokens: estimateTokens(text), droppedLines: 0 };
  }

  const cost = lines.map((l) => estimateTokens(lineText(l)) + 1);
  let total = cost.reduce((a, b) => a + b, 0);
  const recost = (i: number) => {
    const c = estimateTokens(lineText(lines[i]!)) + 1;
    total += c - cost[i]!;
    cost[i] = c;
  };

  // 1. Shorten long text (not the names of things a model acts on).
  for (const cap of [200, 100, 50]) {
    if (total <= budget) break;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.hasRef || (l.name.length <= cap && l.value.length <= cap)) continue;
      l.name = truncate(l.name, cap);
      l.value = truncate(l.value, cap);
      recost(i);
    }
  }
  // 2. Drop text lines from the end (never a ref line, nor a line with refs below it).
  let dropped = 0;
  const note = 12; // the "lines omitted" note
  const over = total > budget;
  for (let i = lines.length - 1; over && i >= 0 && total + note > budget; i--) {
    const l = lines[i]!;
    if (l.hasRef || l.anchor) continue;
    l.dropped = true;
    total -= cost[i]!;
    dropped++;
  }
  // 3. Still over: shorten names and values on ref lines too (the ref keeps them addressable).
  for (const cap of [80, 40, 20]) {
    if (total + (dropped ? note : 0) <= budget) break;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.dropped || (l.name.length <= cap && l.value.length <= cap)) continue;
      l.name = truncate(l.name, cap);
      l.value = truncate(l.value, cap);
      recost(i);
    }
  }
  const kept: string[] = [];
  for (const l of lines) if (!l.dropped) kept.push(lineText(l));
  if (dropped) kept.push(`… ${dropped} text line${dropped === 1 ? "" : "s"} omitted (token budget)`);
  const text = kept.join("\n");
  return { text, tokens: estimateTokens(text), droppedLines: dropped };
}
