/**
 * A DOM subtree as plain, readable text: blocks separated by a blank line, list items on their own
 * line with "- " or "N. ", table rows on their own line with tab-separated cells, `<br>` as a line break,
 * `<pre>` kept verbatim, whitespace elsewhere collapsed as a browser would.
 */

const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DD", "DETAILS", "DIALOG", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE",
  "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HR", "MAIN", "NAV", "OL", "P", "PRE", "SECTION",
  "SUMMARY", "TABLE", "UL", "CAPTION",
]);
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "SVG", "CANVAS", "IFRAME", "OBJECT", "EMBED"]);

class TextWriter {
  private out = "";

  /** Inline text, whitespace collapsed; no leading space at the start of a line. */
  inline(text: string): void {
    let t = text.replace(/\s+/g, " ");
    if (this.out === "" || /\s$/.test(this.out)) t = t.replace(/^ /, "");
    this.out += t;
  }

  verbatim(text: string): void {
    this.out += text;
  }

  /** End the current line (no blank line). */
  line(): void {
    this.out = this.out.replace(/[ \t]+$/, "");
    if (this.out && !this.out.endsWith("\n")) this.out += "\n";
  }

  /** A blank line between blocks. */
  block(): void {
    this.line();
    if (this.out && !this.out.endsWith("\n\n")) this.out += "\n";
  }

  /** Cell separator within a row. */
  cell(): void {
    this.out = this.out.replace(/ +$/, "");
    if (this.out && !this.out.endsWith("\n")) this.out += "\t";
  }

  toString(): string {
    return this.out
      .split("\n")
      .map((l) => l.replace(/[ \t]+$/, ""))
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }
}

function walk(node: Node, w: TextWriter): void {
  if (node.nodeType === 3) {
    w.inline(node.textContent ?? "");
    return;
  }
  if (node.nodeType !== 1) return;
  const el = node as Element;
  const tag = el.tagName.toUpperCase();
  if (SKIP.has(tag)) return;
  switch (tag) {
    case "BR":
      w.line();
      return;
    case "HR":
      w.block();
      return;
    case "IMG": {
      const alt = el.getAttribute("alt")?.trim();
      if (alt) w.inline(` ${alt} `);
      return;
    }
    case "PRE":
      w.block();
      w.verbatim((el.textContent ?? "").replace(/\n+$/, ""));
      w.block();
      return;
    case "LI": {
      w.line();
      const parent = el.parentElement;
      w.verbatim("  ".repeat(Math.max(0, listDepth(el) - 1)));
      if (parent?.tagName.toUpperCase() === "OL") {
        const start = Number(parent.getAttribute("start")) || 1;
        w.verbatim(`${start + Array.from(parent.children).indexOf(el)}. `);
      } else w.verbatim("- ");
      for (const c of Array.from(el.childNodes)) walk(c, w);
      w.line();
      return;
    }
    case "TR":
      w.line();
      for (const c of Array.from(el.childNodes)) walk(c, w);
      w.line();
      return;
    case "TD":
    case "TH":
      w.cell();
      for (const c of Array.from(el.childNodes)) walk(c, w);
      return;
  }
  // A list inside a list item continues it line by line; other blocks stand apart.
  const nested = (tag === "UL" || tag === "OL") && el.parentElement?.tagName.toUpperCase() === "LI";
  const isBlock = BLOCKS.has(tag);
  const open = () => (nested ? w.line() : isBlock ? w.block() : undefined);
  open();
  for (const c of Array.from(el.childNodes)) walk(c, w);
  open();
}

/** How many lists contain this item (1 for a top-level item). */
function listDepth(li: Element): number {
  let depth = 0;
  for (let p = li.parentElement; p; p = p.parentElement) if (p.tagName.toUpperCase() === "UL" || p.tagName.toUpperCase() === "OL") depth++;
  return depth;
}

export function elementText(root: Element): string {
  const w = new TextWriter();
  for (const c of Array.from(root.childNodes)) walk(c, w);
  return w.toString();
}
