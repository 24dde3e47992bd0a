/**
 * `svc get text|value|attr NAME|url|title|html|count|box|styles [<ref|selector>]`: read from the page or one element,
 * no action. `text` without a target is the page's visible text; the others need one. `box` is in CSS px of the top
 * page's viewport; `styles` takes `--prop NAME`, else a fixed useful set.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { callOn, resolveTarget } from "../../src/internal.js";
import type { GlobalOptions } from "../core/output.js";
import { type ElementField, elementField, parseProps } from "./inspect.js";
import { withSession } from "../core/runtime.js";
import { sessionSnapshots } from "./snapshot.js";

const WHAT = ["text", "value", "attr", "url", "title", "html", "count", "box", "styles"] as const;
const ELEMENT_FIELDS: readonly What[] = ["html", "count", "box", "styles"];
type What = (typeof WHAT)[number];

interface Query {
  what: What;
  name?: string;
  target?: string;
}

function parseGet(what: string, args: readonly string[]): Query {
  if (!(WHAT as readonly string[]).includes(what)) throw new ServiceInvalidArgumentError(`get: unknown field "${what}"`, { hint: `one of ${WHAT.join(", ")}` });
  const w = what as What;
  const rest = [...args];
  const name = w === "attr" ? rest.shift() : undefined;
  if (w === "attr" && !name?.trim()) throw new ServiceInvalidArgumentError("get attr: the attribute name is missing", { hint: "svc get attr href e3" });
  const most = w === "url" || w === "title" ? 0 : 1;
  if (rest.length > most) throw new ServiceInvalidArgumentError(`get ${w}: unexpected argument "${rest[most]}"`);
  const target = rest[0];
  if (w !== "text" && most === 1 && !target?.trim()) throw new ServiceInvalidArgumentError(`get ${w}: the target is missing`, { hint: `svc get ${w}${name ? ` ${name}` : ""} e3` });
  return { what: w, ...(name !== undefined ? { name } : {}), ...(target !== undefined ? { target } : {}) };
}

export async function get(g: GlobalOptions, what: string, args: readonly string[], flags: { prop?: string[] } = {}): Promise<void> {
  const q = parseGet(what, args);
  if (flags.prop !== undefined && q.what !== "styles") throw new ServiceInvalidArgumentError(`--prop applies to get styles, not get ${q.what}`);
  const props = q.what === "styles" ? parseProps(flags.prop) : [];
  await withSession(g, async ({ svc, out, session }) => {
    const page = svc.page;
    if (ELEMENT_FIELDS.includes(q.what)) {
      const found = await elementField(page, session, q.what as ElementField, q.target!, props);
      const text = typeof found === "string" ? found : typeof found === "number" ? String(found) : JSON.stringify(found);
      out.result({ session: session?.id, field: q.what, target: q.target, value: found }, () => text);
      return;
    }
    let value: string | null;
    if (q.what === "url") value = page.url();
    else if (q.what === "title") value = await page.title();
    else {
      const selector = q.target ?? "/html/body";
      const refs = q.target !== undefined && /^(ref=)?e\d+$/.test(q.target.trim()) ? sessionSnapshots(session).refs(page) : undefined;
      const el = await resolveTarget(page, selector, refs);
      value = await callOn<string | null>(
        el,
        function (this: Element, what: string, name: string) {
          const t = this.nodeType === Node.TEXT_NODE ? (this as unknown as Text).parentElement! : this;
          if (what === "attr") return t.getAttribute(name);
          if (what === "value") return "value" in t ? String((t as HTMLInputElement).value) : null;
          return (t as HTMLElement).innerText ?? t.textContent ?? "";
        },
        q.what,
        q.name ?? "",
      );
    }
    out.result({ session: session?.id, field: q.what, ...(q.name !== undefined ? { name: q.name } : {}), ...(q.target !== undefined ? { target: q.target } : {}), value }, () => value ?? "");
  });
}
