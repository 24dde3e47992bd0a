/**
 * HTML → Markdown / text on the fixture article and small documents: headings, links (absolute), tables
 * (GFM pipes), code blocks (fenced, with language), lists survive; navigation, sidebars, footers,
 * scripts and styles do not.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { htmlToMarkdown, htmlToText, readableContent, wholeDocument } from "../../src/fetch/html.js";

const ARTICLE = readFileSync(new URL("../../fixtures/pages/fetch/article.html", import.meta.url), "utf8");
const BASE = "http://site.test/blog/2024/tea.html";

describe("markdown of the fixture article", () => {
  const { content: md, title } = htmlToMarkdown(ARTICLE, BASE);

  it("keeps the headings, h1 to h3, in order", () => {
    const headings = md.split("\n").filter((l) => /^#{1,6} /.test(l));
    expect(headings).toEqual(["# Brewing Tea at Home", "## Choosing the leaves", "### Water temperature", "### Timing it"]);
    expect(title).toBe("Brewing Tea at Home | The Fixture Gazette");
  });

  it("makes every link absolute (relative, root-relative with fragment, already absolute)", () => {
    expect(md).toContain("[note on water](http://site.test/blog/2024/guides/water.html)");
    expect(md).toContain("[guide to cups](http://site.test/guides/cups.html#sizes)");
    expect(md).toContain("[history of tea](https://tea.example.org/history)");
    expect(md).not.toMatch(/\]\((?!https?:\/\/)/);
  });

  it("turns the table into a GFM pipe table", () => {
    expect(md).toContain(["| Tea | Temperature | Minutes |", "| --- | --- | --- |", "| Green | 75 °C | 2 |", "| Oolong | 85 °C | 3 |", "| Black | 95 °C | 4 |"].join("\n"));
  });

  it("fences the code block with its language, code untouched", () => {
    expect(md).toContain('```ts\nconst minutes: number = Number(process.argv[2] ?? 3);\nsetTimeout(() => console.log("Tea is ready"), minutes * 60_000);\n```');
  });

  it("keeps lists (bulleted, numbered) and strikethrough", () => {
    expect(md).toContain("- Green tea: delicate, grassy\n- Black tea: malty, strong ~~and always bitter~~\n- Oolong: somewhere in between");
    expect(md).toContain("1. Warm the pot.\n2. Add one spoon of leaves per cup.\n3. Pour, wait, enjoy.");
  });

  it("drops navigation, banner, sidebar, footer, script and style", () => {
    for (const boilerplate of ["Sign in", "Subscribe today", "Ten kettles", "All rights reserved", "Privacy", "window.analytics", "font-family"]) {
      expect(md, boilerplate).not.toContain(boilerplate);
    }
    expect(md).not.toMatch(/<\/?[a-z]+[\s>]/i); // no HTML left
  });
});

describe("text of the fixture article", () => {
  const { content: text } = htmlToText(ARTICLE, BASE);

  it("is plain text: blocks apart, list items and table rows on their own lines", () => {
    expect(text.startsWith("Brewing Tea at Home\n\nGood tea needs only three things")).toBe(true);
    expect(text).toContain("\n\nChoosing the leaves\n\n");
    expect(text).toContain("- Green tea: delicate, grassy\n- Black tea: malty, strong and always bitter\n- Oolong");
    expect(text).toContain("Tea\tTemperature\tMinutes\nGreen\t75 °C\t2\n");
    expect(text).toContain('const minutes: number = Number(process.argv[2] ?? 3);\nsetTimeout(() => console.log("Tea is ready"), minutes * 60_000);');
    expect(text).toContain("1. Warm the pot.\n2. Add one spoon");
    expect(text).not.toMatch(/Sign in|All rights reserved|\]\(http|<p>|<a /);
    expect(text).not.toMatch(/ {2,}(?!spaces)/); // whitespace collapsed outside pre
  });
});

describe("smaller documents", () => {
  it("a page without html/head/body tags keeps all of its content", () => {
    expect(wholeDocument("<title>T</title><p>x</p>")).toBe("<!doctype html><html><head><title>T</title></head><body><p>x</p></body></html>");
    const md = htmlToMarkdown("<!doctype html><title>Short</title><h1>Short page</h1><p>One line.</p><p>Two lines.</p>", BASE).content;
    expect(md).toContain("One line.");
    expect(md).toContain("Two lines.");
  });

  it("falls back to the whole body (minus scripts and styles) when Readability finds no article", () => {
    const r = readableContent("<html><head><title>Empty</title></head><body><script>var x = 1;</script><style>p{}</style></body></html>", BASE);
    expect(r.article).toBe(false);
    expect(r.html).not.toMatch(/var x|p\{\}/);
    const md = htmlToMarkdown('<html><body><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul><script>track()</script></body></html>', BASE).content;
    expect(md).toContain("[A](http://site.test/a)");
    expect(md).not.toContain("track()");
  });

  it("finds a code block's language in the usual places, and fences a pre without code", () => {
    const page = (pre: string) =>
      `<html><head><title>Code</title></head><body><article><p>${"Some words about code that make this an article. ".repeat(12)}</p>${pre}<p>${"More words after the code block. ".repeat(10)}</p></article></body></html>`;
    expect(htmlToMarkdown(page('<pre class="lang-python"><code>print(1)</code></pre>'), BASE).content).toContain("```python\nprint(1)\n```");
    expect(htmlToMarkdown(page('<div class="highlight highlight-source-rust"><pre>fn main() {}</pre></div>'), BASE).content).toContain("```rust\nfn main() {}\n```");
    expect(htmlToMarkdown(page('<pre data-lang="go"><code>package main</code></pre>'), BASE).content).toContain("```go\npackage main\n```");
    expect(htmlToMarkdown(page("<pre><span>line one</span><br><span>line two</span></pre>"), BASE).content).toContain("```\nline one\nline two\n```");
  });

  it("honours <base href>, drops javascript: links and inline data: images", () => {
    const html = `<html><head><base href="https://cdn.test/docs/"></head><body><p><a href="page.html">rel</a> <a href="javascript:void(0)">js</a> <img src="data:image/png;base64,AAAA" alt="inline"> <img src="pic.png" alt="pic"></p></body></html>`;
    const md = htmlToMarkdown(html, BASE).content;
    expect(md).toContain("[rel](https://cdn.test/docs/page.html)");
    expect(md).toContain("js");
    expect(md).not.toContain("javascript:");
    expect(md).not.toContain("data:image");
    expect(md).toContain("![pic](https://cdn.test/docs/pic.png)");
  });
});
