/**
 * Reading the project's Markdown the way a reader sees it on GitHub: headings and their anchors (outside
 * code blocks), sections, ```sh blocks, links, and prose lines (neither code nor table rows). Used by the
 * docs test.
 */

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").trim().replace(/\s/g, "-");
}

interface Line {
  text: string;
  /** 1-based line number. */
  n: number;
  inCode: boolean;
}

function lines(md: string): Line[] {
  let inCode = false;
  return md.split("\n").map((text, i) => {
    const fence = text.startsWith("```");
    const line = { text, n: i + 1, inCode: inCode || fence };
    if (fence) inCode = !inCode;
    return line;
  });
}

export interface Heading {
  depth: number;
  text: string;
  anchor: string;
}

export function headings(md: string): Heading[] {
  const out: Heading[] = [];
  for (const l of lines(md)) {
    const m = !l.inCode && /^(#{1,6}) (.+)$/.exec(l.text);
    if (m) out.push({ depth: m[1]!.length, text: m[2]!, anchor: slug(m[2]!) });
  }
  return out;
}

/** The text of the `## title` section (up to the next heading of depth ≤ 2), or undefined. */
export function section(md: string, title: string): string | undefined {
  const all = lines(md);
  const start = all.findIndex((l) => !l.inCode && l.text === `## ${title}`);
  if (start < 0) return undefined;
  const end = all.findIndex((l, i) => i > start && !l.inCode && /^#{1,2} /.test(l.text));
  return all.slice(start, end < 0 ? undefined : end).map((l) => l.text).join("\n");
}

/** The shell lines of every ```sh block in `md`, in order (blank and comment-only lines left out). */
export function shLines(md: string): string[] {
  const out: string[] = [];
  for (const m of md.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const line of m[1]!.split("\n")) if (line.trim() && !line.trim().startsWith("#")) out.push(line);
  }
  return out;
}

/** Every `[text](target)` link outside code blocks and code spans. */
export function links(md: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const l of lines(md)) {
    if (l.inCode) continue;
    const text = l.text.replace(/`[^`]*`/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ target: m[1]!, line: l.n });
  }
  return out;
}

/** Lines that are prose: neither in a code block nor a table row. */
export function proseLines(md: string): { text: string; line: number }[] {
  return lines(md).filter((l) => !l.inCode && !l.text.trimStart().startsWith("|")).map((l) => ({ text: l.text, line: l.n }));
}

/** The rows of the first table whose header row is `header`, each split into trimmed cells. */
export function tableRows(md: string, header: string): string[][] {
  const all = md.split("\n");
  const start = all.indexOf(header);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of all.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}
