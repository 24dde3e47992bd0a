/**
 * The selector language of `Action.selector`, `page.locator()` and `deepLocator()`: XPath (`xpath=…`, `/…`, `(…`; a
 * step after an iframe continues in its document, `#shadow-root` enters a shadow root) or CSS (` >> ` enters an
 * iframe or shadow host; `deepLocator` also searches every frame). Examples: docs/cli.md, Selectors.
 */
export type ParsedSelector = { kind: "xpath"; steps: string[] } | { kind: "css"; hops: string[] };

export const SHADOW_STEP = "#shadow-root";

export function parseSelector(raw: string): ParsedSelector {
  const selector = raw.trim();
  if (selector.startsWith("xpath=")) return { kind: "xpath", steps: splitXPath(selector.slice(6).trim()) };
  if (selector.startsWith("css=")) return { kind: "css", hops: splitHops(selector.slice(4)) };
  if (selector.startsWith("/") || selector.startsWith("(")) return { kind: "xpath", steps: splitXPath(selector) };
  return { kind: "css", hops: splitHops(selector) };
}

function splitHops(css: string): string[] {
  return css
    .split(/\s+>>\s+/)
    .map((h) => h.trim())
    .filter(Boolean);
}

/** Splits an XPath on `/` outside brackets, parentheses and quotes. `//a` → ["", "", "a"]. */
function splitXPath(xpath: string): string[] {
  const steps: string[] = [];
  let cur = "";
  let depth = 0;
  let quote: string | null = null;
  for (const ch of xpath) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (ch === "[" || ch === "(") {
      depth++;
      cur += ch;
    } else if (ch === "]" || ch === ")") {
      depth--;
      cur += ch;
    } else if (ch === "/" && depth === 0) {
      steps.push(cur);
      cur = "";
    } else cur += ch;
  }
  steps.push(cur);
  return steps;
}

export function joinXPath(steps: string[]): string {
  return steps.join("/");
}

/** Does this step select a frame owner element (`iframe`, `iframe[2]`, `frame[@name='x']`)? */
export function isFrameStep(step: string): boolean {
  return /^(?:descendant-or-self::|child::)?(?:i?frame)(?:\[.*\])?$/i.test(step.trim());
}

// ——— Functions run inside the page (Runtime.callFunctionOn; `this` is the receiver). ———

/** `this`: a Document or ShadowRoot. Returns the first node matching the XPath, or null. */
export function pageXPathFirst(this: Document | ShadowRoot, expr: string): Node | null {
  const doc = (this as Node).ownerDocument ?? (this as unknown as Document);
  let context: Node = this;
  // A ShadowRoot is not a valid XPath context node (NotSupportedError), but it is the XPath parent of its
  // top-level children: evaluate from its first child with `.` turned into `..`.
  if (this.nodeType === Node.DOCUMENT_FRAGMENT_NODE) {
    if (!this.firstChild) return null;
    context = this.firstChild;
    expr = expr === "." ? ".." : expr.replace(/^\.(?=\/)/, "..");
  }
  return doc.evaluate(expr, context, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
}

/** `this`: a Document or ShadowRoot. */
export function pageCssFirst(this: Document | ShadowRoot, selector: string): Element | null {
  return this.querySelector(selector);
}

/**
 * `this`: an Element. Its XPath within its frame's document, crossing shadow roots (closed ones too: from
 * inside, getRootNode() reaches them) with `#shadow-root` steps. Indexes only where siblings share a name.
 */
export function pageXPathOf(this: Node): string {
  const steps: string[] = [];
  let node: Node | null = this;
  while (node) {
    if (node.nodeType === Node.DOCUMENT_NODE) break;
    if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE) {
      steps.unshift("#shadow-root");
      node = (node as ShadowRoot).host;
      continue;
    }
    const parent: Node | null = node.parentNode;
    let name: string;
    if (node.nodeType === Node.ELEMENT_NODE) {
      const el = node as Element;
      const local = el.localName;
      name = el.namespaceURI === "http://www.w3.org/1999/xhtml" && /^[a-z][a-z0-9-]*$/.test(local) ? local : `*[name()='${el.nodeName}']`;
      if (parent) {
        const same = Array.from(parent.childNodes).filter((c) => c.nodeType === Node.ELEMENT_NODE && (c as Element).nodeName === el.nodeName);
        if (same.length > 1) name += `[${same.indexOf(el) + 1}]`;
      }
    } else if (node.nodeType === Node.TEXT_NODE) {
      name = "text()";
      if (parent) {
        const same = Array.from(parent.childNodes).filter((c) => c.nodeType === Node.TEXT_NODE);
        if (same.length > 1) name += `[${same.indexOf(node as ChildNode) + 1}]`;
      }
    } else break;
    steps.unshift(name);
    node = parent;
  }
  return "/" + steps.join("/");
}

/**
 * Source text of a function to run in the page. Bundlers that keep function names (esbuild's keepNames,
 * used by tsx) wrap inner functions in calls to a `__name` helper that does not exist in the page; a no-op
 * stand-in makes the same source work built or run from TypeScript.
 */
export function pageFunction(fn: (...args: any[]) => unknown): string {
  return `function (...args) { const __name = (f) => f; return (${fn.toString()}).apply(this, args); }`;
}
