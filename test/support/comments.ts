/**
 * Every comment of the repository's TypeScript, read with the TypeScript scanner's comment ranges (a run of `//`
 * lines is one comment), for test/unit/comments.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROOT, rel, walk } from "./imports.js";

export const MAX = 400;
const OUTSIDE = [/\bthe seed\b/i, /seed\.md/, /user'?s spec(ification)?/i, /\.\.\/shared\//];

export interface Comment {
  file: string;
  line: number;
  text: string;
  /** Where the comment (the whole run of `//` lines) starts and ends in the file. */
  pos: number;
  end: number;
}

/** The words of a comment: no `//`, `/*`, `*` decoration, no indentation, lines joined by one space. */
export function commentText(raw: string): string {
  const body = raw.startsWith("/*") ? raw.slice(2, raw.endsWith("*/") ? -2 : undefined) : raw;
  return body
    .split("\n")
    .map((l) => l.trim().replace(raw.startsWith("/*") ? /^\*+(?!\/)/ : /^\/\/+/, "").trim())
    .filter((l) => l !== "")
    .join(" ");
}

export function commentsOf(file: string, text: string): Comment[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (pos: number) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, pos) ?? []), ...(ts.getTrailingCommentRanges(text, pos) ?? [])]) ranges.set(r.pos, r);
  };
  const visit = (node: ts.Node) => {
    collect(node.pos);
    collect(node.end);
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const ownLine = (pos: number) => text.slice(text.lastIndexOf("\n", pos - 1) + 1, pos).trim() === "";
  const out: Comment[] = [];
  let run: { line: number; last: number; raws: string[]; pos: number; end: number } | undefined;
  const flush = () => {
    if (run) out.push({ file, line: run.line + 1, text: commentText(run.raws.join("\n")), pos: run.pos, end: run.end });
    run = undefined;
  };
  for (const r of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const raw = text.slice(r.pos, r.end);
    const line = lineOf(r.pos);
    const single = r.kind === ts.SyntaxKind.SingleLineCommentTrivia;
    if (single && run && ownLine(r.pos) && line === run.last + 1) {
      run.raws.push(raw);
      run.last = line;
      run.end = r.end;
      continue;
    }
    flush();
    if (single && ownLine(r.pos)) run = { line, last: line, raws: [raw], pos: r.pos, end: r.end };
    else out.push({ file, line: line + 1, text: commentText(raw), pos: r.pos, end: r.end });
  }
  flush();
  return out;
}

export const tooLong = (c: Comment) => c.text.length > MAX;
export const citesOutside = (c: Comment) => OUTSIDE.some((re) => re.test(c.text));
export const offends = (c: Comment) => tooLong(c) || citesOutside(c);

const FOLDERS = ["src", "commands", "test", "bench", "scripts"];
export const COMMENTS = FOLDERS.flatMap((f) => walk(join(ROOT, f))).flatMap((p) => commentsOf(rel(p), readFileSync(p, "utf8")));
