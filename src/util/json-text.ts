/**
 * The JSON value in a model's reply, however wrapped: reasoning blocks (`<think>`, even unclosed) are dropped, then
 * the reply is read as JSON, else from a ```json fence, else from the first balanced `{…}` or `[…]`. Nothing is
 * repaired: a reply cut mid-object is not JSON and the operation asks again, where a repairing parser would pass a
 * truncated answer off as whole.
 */

const REASONING = /<(think|thinking|reasoning)>[\s\S]*?(?:<\/\1>|$)/gi;
/** Some chat templates open the block in the prompt, so the reply starts inside it with only the closing tag. */
const DANGLING_CLOSE = /^[\s\S]*?<\/(think|thinking|reasoning)>/i;
const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;

/** The reply without reasoning blocks. */
export function stripReasoning(text: string): string {
  let out = text.replace(REASONING, "");
  if (/<\/(think|thinking|reasoning)>/i.test(out)) out = out.replace(DANGLING_CLOSE, "");
  return out.trim();
}

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * The end index (exclusive) of the balanced object/array starting at `start`; -1 when a bracket does not
 * match, -2 when the text ends first (a cut-off reply: everything after `start` is inside it). Strings are skipped.
 */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -2;
}

const nextOpen = (text: string, from: number): number => {
  const k = text.slice(from).search(/[{[]/);
  return k < 0 ? -1 : from + k;
};

/**
 * The first balanced JSON object or array in prose that parses. A balanced span that is not JSON
 * (`{something}`) is stepped over whole, never searched for fragments; an unclosed one ends the search.
 */
function firstEmbedded(text: string): { value: unknown } | undefined {
  for (let i = nextOpen(text, 0); i >= 0; ) {
    const end = balancedEnd(text, i);
    if (end === -2) return undefined;
    if (end > 0) {
      const found = tryParse(text.slice(i, end));
      if (found) return found;
    }
    i = nextOpen(text, end > 0 ? end : i + 1);
  }
  return undefined;
}

/** The JSON value in a model reply (see the file comment); undefined when there is none. */
export function jsonFromText(text: string): { value: unknown } | undefined {
  const direct = tryParse(text);
  if (direct) return direct;
  const body = stripReasoning(text);
  const whole = tryParse(body);
  if (whole) return whole;
  for (const m of body.matchAll(FENCE)) {
    const fenced = tryParse(m[1]!.trim()) ?? firstEmbedded(m[1]!);
    if (fenced) return fenced;
  }
  return firstEmbedded(body);
}
