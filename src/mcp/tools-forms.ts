/**
 * The MCP tools beyond the verbs: closing the browser and filling a form at once. Each result is what the page
 * shows afterwards (b.report), read after the fact.
 */
import { type Action, ServiceInvalidArgumentError } from "../index.js";
import { callOn } from "../internal.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

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
}
