/**
 * HTML → readable content → Markdown or text: parsed with linkedom (no scripts run), links made absolute, code blocks
 * normalized, then Readability picks the article (else the whole body), and turndown with GFM writes Markdown.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { gfm } from "turndown-plugin-gfm";
import { elementText } from "./text.js";

export interface Readable {
  title: string | undefined;
  /** The readable part as an HTML fragment. */
  html: string;
  /** True when Readability found an article; false when this is the whole body. */
  article: boolean;
  /** What to put in a top-level heading when the readable part has none: the page's h1 when the title contains it, else the title. */
  headline: string | undefined;
}

/** Elements that never carry readable content (removed from the fallback body and ignored by turndown). */
const NOISE = ["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas"] as const;

/**
 * linkedom builds the tree the markup spells out, without HTML's implied `<html>`/`<head>`/`<body>`: a
 * page that leaves them out (valid HTML) would lose everything after its first element. Such markup is
 * rebuilt into a whole document first: head-only elements into `<head>`, the rest into `<body>`.
 */
export function wholeDocument(html: string): string {
  if (/<html[\s>]/i.test(html) && /<body[\s>]/i.test(html)) return html;
  let rest = html.replace(/^\s*<!doctype[^>]*>/i, "");
  const head: string[] = [];
  rest = rest.replace(/<head(?:\s[^>]*)?>([\s\S]*?)<\/head\s*>/i, (_m, inner: string) => (head.push(inner), ""));
  rest = rest.replace(/<title[\s>][\s\S]*?<\/title\s*>|<(?:meta|base|link)\b[^>]*>/gi, (m) => (head.push(m), ""));
  rest = rest.replace(/<\/?(?:html|head|body)\b[^>]*>/gi, "");
  return `<!doctype html><html><head>${head.join("")}</head><body>${rest}</body></html>`;
}

function parse(html: string): Document {
  return parseHTML(wholeDocument(html)).document as unknown as Document;
}

function absolute(value: string, base: string): string | undefined {
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return undefined;
  }
}

/** `<base href>` resolved against the page URL, when it is a usable http(s) URL. */
function baseOf(doc: Document, pageUrl: string): string {
  const href = doc.querySelector("base[href]")?.getAttribute("href");
  const base = href ? absolute(href, pageUrl) : undefined;
  return base && /^https?:/.test(base) ? base : pageUrl;
}

function absolutize(doc: Document, pageUrl: string): void {
  const base = baseOf(doc, pageUrl);
  for (const el of Array.from(doc.querySelectorAll("a[href], area[href]"))) {
    const href = el.getAttribute("href")!;
    const abs = /^\s*javascript:/i.test(href) ? undefined : absolute(href, base);
    if (abs) el.setAttribute("href", abs);
    else el.removeAttribute("href");
  }
  for (const el of Array.from(doc.querySelectorAll("img, source, video, audio"))) {
    const src = el.getAttribute("src") || el.getAttribute("data-src") || "";
    // Inline data: images would put kilobytes of base64 into the text.
    const abs = src && !/^\s*data:/i.test(src) ? absolute(src, base) : undefined;
    if (abs) el.setAttribute("src", abs);
    else el.removeAttribute("src");
  }
}

const LANGUAGE_PATTERNS = [/(?:^|\s)(?:language|lang)-([\w+#.-]+)/i, /(?:^|\s)highlight-(?:text|source)-([\w+#-]+)/i, /brush:\s*([\w+#-]+)/i];

function languageOf(el: Element | null | undefined): string | undefined {
  if (!el) return undefined;
  const attr = el.getAttribute("data-lang") || el.getAttribute("data-language");
  if (attr && /^[\w+#.-]+$/.test(attr)) return attr.toLowerCase();
  const cls = el.getAttribute("class") ?? "";
  for (const re of LANGUAGE_PATTERNS) {
    const m = re.exec(cls);
    if (m) return m[1]!.toLowerCase();
  }
  return undefined;
}

/**
 * Every `<pre>` becomes `<pre><code class="language-X">…</code></pre>` (X when a class or data attribute
 * on the code, the pre or its wrapper says it): the one shape turndown fences, with its language.
 * Returns the classes Readability must keep.
 */
function normalizeCode(doc: Document): string[] {
  const classes = new Set<string>();
  for (const pre of Array.from(doc.querySelectorAll("pre"))) {
    const elements = Array.from(pre.children);
    const only = elements.length === 1 && elements[0]!.tagName.toLowerCase() === "code" ? elements[0]! : undefined;
    const lang = languageOf(only) ?? languageOf(pre) ?? languageOf(pre.querySelector("code")) ?? languageOf(pre.parentElement);
    let code = only;
    if (code && Array.from(pre.childNodes).every((n) => n === code || (n.nodeType === 3 && !n.textContent?.trim()))) {
      for (const n of Array.from(pre.childNodes)) if (n !== code) n.remove();
    } else {
      for (const br of Array.from(pre.querySelectorAll("br"))) br.replaceWith(doc.createTextNode("\n"));
      code = doc.createElement("code");
      code.textContent = pre.textContent ?? "";
      while (pre.firstChild) pre.firstChild.remove();
      pre.appendChild(code);
    }
    if (lang) {
      code.setAttribute("class", `language-${lang}`);
      classes.add(`language-${lang}`);
    } else code.removeAttribute("class");
  }
  return [...classes];
}

function prepare(html: string, pageUrl: string): { doc: Document; keep: string[] } {
  const doc = parse(html);
  absolutize(doc, pageUrl);
  return { doc, keep: normalizeCode(doc) };
}

const squash = (s: string | null | undefined) => s?.replace(/\s+/g, " ").trim() || undefined;

function titleIn(doc: Document): string | undefined {
  return squash(doc.querySelector("title")?.textContent) ?? squash(doc.querySelector("h1")?.textContent);
}

export function documentTitle(html: string): string | undefined {
  return titleIn(parse(html));
}

/** The readable part (Readability) or, when there is none, the body without scripts and styles. */
export function readableContent(html: string, pageUrl: string): Readable {
  const { doc, keep } = prepare(html, pageUrl);
  // Read before Readability rewrites the document.
  const fallbackTitle = titleIn(doc);
  const h1 = squash(doc.querySelector("h1")?.textContent);
  let article: ReturnType<Readability<string>["parse"]> = null;
  try {
    article = new Readability(doc, { classesToPreserve: ["page", ...keep] }).parse();
  } catch {
    article = null; // a document Readability cannot walk: use the body
  }
  if (article?.content && article.textContent?.trim()) {
    const title = squash(article.title) ?? fallbackTitle;
    // Readability drops the h1 that repeats the title; it is the better headline when the title contains it.
    const headline = h1 && (!title || title.toLowerCase().includes(h1.toLowerCase())) ? h1 : title;
    return { title, html: article.content, article: true, headline };
  }
  const body = prepare(html, pageUrl).doc;
  for (const tag of NOISE) for (const el of Array.from(body.querySelectorAll(tag))) el.remove();
  return { title: fallbackTitle, html: body.body?.innerHTML ?? body.documentElement?.outerHTML ?? "", article: false, headline: fallbackTitle };
}

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_", hr: "---" });
  td.use(gfm);
  td.remove([...NOISE]);
  // One space after the marker ("- item", "1. item") instead of turndown's aligned "-   item".
  td.addRule("listItem", {
    filter: "li",
    replacement(content, node) {
      const parent = node.parentNode as Element | null;
      let prefix = "- ";
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start")) || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const paragraph = /\n$/.test(content);
      const body = content.replace(/^\n+|\n+$/g, "") + (paragraph ? "\n" : "");
      return prefix + body.replace(/\n/g, `\n${" ".repeat(prefix.length)}`) + (node.nextSibling ? "\n" : "");
    },
  });
  td.addRule("strikethrough", { filter: ["del", "s", "strike"] as never, replacement: (content) => `~~${content}~~` });
  return (service = td);
}

function hasH1(fragment: string): boolean {
  return !!parse(`<!doctype html><html><body>${fragment}</body></html>`).querySelector("h1");
}

export function htmlToMarkdown(html: string, pageUrl: string): { content: string; title: string | undefined } {
  const readable = readableContent(html, pageUrl);
  let md = turndown().turndown(readable.html || "").replace(/\n{3,}/g, "\n\n").trim();
  if (readable.headline && !hasH1(readable.html)) md = `# ${readable.headline}\n\n${md}`.trim();
  return { content: md, title: readable.title };
}

export function htmlToText(html: string, pageUrl: string): { content: string; title: string | undefined } {
  const readable = readableContent(html, pageUrl);
  const doc = parse(`<!doctype html><html><body>${readable.html}</body></html>`);
  let text = doc.body ? elementText(doc.body) : "";
  if (readable.headline && !doc.querySelector("h1")) text = `${readable.headline}\n\n${text}`.trim();
  return { content: text, title: readable.title };
}
