/**
 * The MCP tools beyond the verbs: closing the browser, filling a form at once,
 * and finding elements. Each result is what the page shows
 * afterwards (b.report), read after the fact, or the value the page returned.
 */
import { type Action, ServiceInvalidArgumentError } from "../index.js";
import { callOn, findElements, selectorOf } from "../internal.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

/** `find` lists at most this many matches (and says how many more). */
const FIND_LIMIT = 20;

function action(selector: string, method: Action["method"], args: string[] = []): Action {
  return { selector, description: "", method, arguments: args };
}

export function registerFormTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "close", () =>
    b.run(async () => {
      await b.restart();
      return textResult("closed the browser; the next tool starts a new one");
    }),
  );

  registerDeclared(reg, "fill_form", ({ fields }) =>
    b.run(async () => {
      const svc = await b.service();
      // Every field's kind first, on the refs of the snapshot the client read.
      const kinds: string[] = [];
      for (const f of fields) {
        const kind = await b.resolve(f.target).then((el) =>
          callOn<string>(el, function (this: Element) {
            const t = this instanceof HTMLInputElement ? this.type : "";
            return this instanceof HTMLSelectElement ? "select" : t === "checkbox" || t === "radio" ? "check" : "text";
          }),
        );
        if (typeof f.value === "boolean" && kind !== "check") throw new ServiceInvalidArgumentError(`fields: ${f.target} is not a checkbox or radio; give it a string`);
        kinds.push(kind);
      }
      const done: string[] = [];
      for (const [i, f] of fields.entries()) {
        const kind = kinds[i];
        const a =
          kind === "check"
            ? action(f.target, f.value === false || f.value === "false" ? "uncheck" : "check")
            : kind === "select"
              ? action(f.target, "selectOptionFromDropdown", [String(f.value)])
              : action(f.target, "fill", [String(f.value)]);
        const r = await svc.act(a);
        if (!r.success) throw new ServiceInvalidArgumentError(`fields: ${f.target}: ${r.message}`);
        done.push(f.target);
      }
      return b.report(`filled ${done.length} field${done.length === 1 ? "" : "s"}: ${done.join(", ")}`);
    }),
  );

  registerDeclared(reg, "find", ({ by, value, name, exact }) =>
    b.run(async () => {
      if (name !== undefined && by !== "role") throw new ServiceInvalidArgumentError("name: goes with by: role");
      const svc = await b.service();
      const page = svc.page;
      const found = await findElements(page.frames, { kind: by, value, ...(name !== undefined ? { name } : {}), ...(exact ? { exact: true } : {}) }, FIND_LIMIT);
      if (found.total === 0) return textResult(`no element matches ${by} "${value}"`);
      const lines: string[] = [];
      for (const el of found.elements) {
        const about = await callOn<string>(el, function (this: Element) {
          const t = (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement ? this.value || this.placeholder : ((this as HTMLElement).innerText ?? this.textContent ?? "")).replace(/\s+/g, " ").trim();
          return `${this.localName}${t ? ` "${t.length > 80 ? `${t.slice(0, 77)}...` : t}"` : ""}`;
        });
        lines.push(`${await selectorOf(page.frames, el)}  ${about}`);
      }
      const more = found.total > lines.length ? [`(${found.total - lines.length} more)`] : [];
      return textResult([`${found.total} match${found.total === 1 ? "" : "es"}; each selector works as a target:`, ...lines, ...more].join("\n"));
    }),
  );
}
