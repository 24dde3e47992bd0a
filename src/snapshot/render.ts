/**
 * SnapNode outline → text for a model. Pure. Playwright's aria snapshot with everything that carries nothing taken out,
 * since tokens are the cost of every step: one node per line, indent for nesting, `e7 button Pay` (ref first, no
 * quotes), `: value`, `[state]` only when set, table rows as `a | b`. Measured with o200k: ref first without brackets
 * and no `- ` bullets each save ~10%.
 */
import type { SnapNode } from "./tree.js";

export interface RenderOptions {
  /**
   * Token budget: text is shortened, then text lines dropped from the end; ref lines are kept unless `cutRefs`,
   * which then cuts the outline's tail too and ends it with a line saying what was left out and how to see it.
   */
  maxTokens?: number;
  cutRefs?: boolean;
  /** Lines printed first whatever the budget (a delta's or a full snapshot's marker); they count against it. */
  header?: readonly string[];
}

export interface Rendered {
  text: string;
  tokens: number;
  /** Lines dropped to meet `maxTokens`. */
  droppedLines: number;
  /** The refs of the lines printed. */
  refs: string[];
  /** What the budget cut from the tail (`cutRefs`): lines, refs among them, the first of those refs. */
  cut?: { lines: number; refs: number; from: string | undefined };
}

/** One output line, kept in parts so the budget can shorten the text without touching the rest. */
export interface Line {
  depth: number;
  /** `button `, `h2 `, `` (text) … */
  head: string;
  name: string;
  value: string;
  /** ` [e4 checked]`. */
  tail: string;
  /** The line's ref (`e4`), when it has one. */
  ref: string | undefined;
  /** Has a ref somewhere below it: dropping it would orphan that line's indentation. */
  anchor: boolean;
  dropped: boolean;
  /** Printed before the indentation: a delta's `+ `, `~ `, `- ` (delta.ts). */
  mark?: string;
}

/**
 * Tokens of a text in o200k terms, without a tokenizer (src/ must not load one: it is megabytes), modelled on how o200k
 * splits this format (words, digit runs, punctuation, line breaks, indentation). Calibrated against gpt-tokenizer
 * (o200k_base) on snapshots of the fixture pages, node-fs and airline-aa: within 0.94–1.13× of the true count, erring
 * high.
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

/** The outline's lines, unbudgeted. */
export function outlineLines(nodes: readonly SnapNode[]): Line[] {
  const lines: Line[] = [];
  toLines(nodes, 0, lines);
  return lines;
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
      ref: n.ref,
      anchor: false,
      dropped: false,
    };
    out.push(line);
    const below = n.children.length ? toLines(n.children, depth + 1, out) : false;
    line.anchor = below;
    if (below || line.ref !== undefined) anyRef = true;
  }
  return anyRef;
}

export function lineText(l: Line): string {
  let s = (l.mark ?? "") + "  ".repeat(l.depth) + l.head;
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

/** Renders the outline; with `maxTokens`, fits it into the budget (see RenderOptions). */
export function render(nodes: readonly SnapNode[], options: RenderOptions = {}): Rendered {
  return fit(outlineLines(nodes), options);
}

/** Lines (an outline's, or a delta's) → text, fitted into `maxTokens` when given. */
export function fit(lines: Line[], options: RenderOptions = {}): Rendered {
  const header = options.header ?? [];
  const budget = options.maxTokens === undefined ? undefined : options.maxTokens - header.reduce((n, h) => n + estimateTokens(h) + 1, 0);
  if (budget === undefined) return finish(lines, header, 0, undefined);

  const cost = lines.map((l) => estimateTokens(lineText(l)) + 1);
  let total = cost.reduce((a, b) => a + b, 0);
  const recost = (i: number) => {
    const c = estimateTokens(lineText(lines[i]!)) + 1;
    total += c - cost[i]!;
    cost[i] = c;
  };
  const shorten = (cap: number, refLines: boolean) => {
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.dropped || (!refLines && l.ref !== undefined) || (l.name.length <= cap && l.value.length <= cap)) continue;
      l.name = truncate(l.name, cap);
      l.value = truncate(l.value, cap);
      recost(i);
    }
  };

  // 1. Shorten long text (not the names of things a model acts on).
  for (const cap of [200, 100, 50]) if (total > budget) shorten(cap, false);
  // The ref lines alone exceed the budget and may be cut: cut the tail (4), keeping the text lines of the head.
  if (options.cutRefs && lines.reduce((n, l, i) => (l.ref !== undefined || l.anchor ? n + cost[i]! : n), 0) + NOTE_TOKENS > budget) return cutTail(lines, cost, header, options.maxTokens!);
  // 2. Drop text lines from the end (never a ref line, nor a line with refs below it).
  let dropped = 0;
  const over = total > budget;
  for (let i = lines.length - 1; over && i >= 0 && total + NOTE_TOKENS > budget; i--) {
    const l = lines[i]!;
    if (l.ref !== undefined || l.anchor) continue;
    l.dropped = true;
    total -= cost[i]!;
    dropped++;
  }
  // 3. Still over: shorten names and values on ref lines too (the ref keeps them addressable).
  for (const cap of [80, 40, 20]) if (total + (dropped ? NOTE_TOKENS : 0) > budget) shorten(cap, true);
  return finish(lines, header, dropped, undefined);
}

/** The "text lines omitted" note's cost (it is short and its number small). */
const NOTE_TOKENS = 12;

function finish(lines: readonly Line[], header: readonly string[], dropped: number, cut: Rendered["cut"]): Rendered {
  const kept = [...header];
  const refs: string[] = [];
  for (const l of lines) {
    if (l.dropped) continue;
    kept.push(lineText(l));
    if (l.ref !== undefined) refs.push(l.ref);
  }
  if (cut) kept.push(cutNote(cut, dropped));
  else if (dropped) kept.push(`… ${dropped} text line${dropped === 1 ? "" : "s"} omitted (token budget)`);
  const text = kept.join("\n");
  return { text, tokens: estimateTokens(text), droppedLines: dropped + (cut?.lines ?? 0), refs, ...(cut ? { cut } : {}) };
}

function cutNote(cut: NonNullable<Rendered["cut"]>, dropped: number): string {
  const rest = cut.from !== undefined ? `the rest: --from ${cut.from}, ` : "";
  return `… ${cut.lines + dropped} lines left out (${cut.refs} with refs; token budget): ${rest}a part: -s <selector>`;
}

/**
 * 4. The outline's tail cut, ref lines included, with a last line saying what was left out and how to ask for it:
 * the longest head of the kept lines that fits with the note, then, since the estimate of the whole text may
 * differ from the sum of its lines by a token here and there, one line less until the whole text fits.
 */
function cutTail(lines: Line[], cost: readonly number[], header: readonly string[], maxTokens: number): Rendered {
  const budget = maxTokens - header.reduce((n, h) => n + estimateTokens(h) + 1, 0);
  const kept = lines.map((l, i) => (l.dropped ? -1 : i)).filter((i) => i >= 0);
  const dropped = lines.length - kept.length;
  const note = estimateTokens(cutNote({ lines: lines.length, refs: lines.length, from: `e${Number.MAX_SAFE_INTEGER}` }, 0)) + 1;
  let n = 0;
  for (let used = note; n < kept.length && used + cost[kept[n]!]! <= budget; n++) used += cost[kept[n]!]!;
  for (;;) {
    const tail = kept.slice(n).map((i) => lines[i]!);
    for (const l of tail) l.dropped = true;
    const cut = { lines: tail.length, refs: tail.filter((l) => l.ref !== undefined).length, from: tail.find((l) => l.ref !== undefined)?.ref };
    const out = finish(lines, header, dropped, cut);
    if (out.tokens <= maxTokens || n === 0) return out;
    n--;
  }
}
