/**
 * The MCP tools beyond the verbs: going back, waiting, closing the browser, filling a form at once,
 * answering the next dialog and evaluating JavaScript. Each result is what the page shows
 * afterwards (b.report), read after the fact, or the value the page returned.
 */
import { sleep } from "../util/abort.js";
import { type Action, ServiceInvalidArgumentError, ServiceTimeoutError } from "../index.js";
import { callOn, findElements, selectorOf } from "../internal.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

/** An evaluate's JSON is cut past this many characters (the client's context is the budget). */
const MAX_VALUE_CHARS = 50_000;
const POLL_MS = 100;
/** `find` lists at most this many matches (and says how many more). */
const FIND_LIMIT = 20;

function action(selector: string, method: Action["method"], args: string[] = []): Action {
  return { selector, description: "", method, arguments: args };
}

export function registerFormTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "wait", ({ target, state, text, time, timeout }) =>
    b.run(async () => {
      const given = [target !== undefined, text !== undefined, time !== undefined].filter(Boolean).length;
      if (given !== 1) throw new ServiceInvalidArgumentError("wait: give exactly one of target, text, time");
      if (state !== undefined && target === undefined) throw new ServiceInvalidArgumentError("state: goes with target");
      const svc = await b.service();
      const page = svc.page;
      if (time !== undefined) {
        await sleep(time);
        return textResult(`waited ${time} ms`);
      }
      const limit = timeout ?? 30_000;
      const deadline = Date.now() + limit;
      const wanted = state ?? "visible";
      const check = async (): Promise<boolean> => {
        if (text !== undefined) return (await page.evaluate<boolean>((t: string) => (document.body?.innerText ?? "").includes(t), text).catch(() => false)) === true;
        let visible = false;
        try {
          const el = await b.resolve(target as string);
          visible = await callOn<boolean>(el, function (this: Element) {
            const r = this.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && getComputedStyle(this).visibility !== "hidden";
          });
        } catch (e) {
          if ((e as { code?: unknown }).code !== "ELEMENT_NOT_FOUND") throw e;
        }
        return wanted === "visible" ? visible : !visible;
      };
      for (;;) {
        if (await check()) break;
        if (Date.now() >= deadline) throw new ServiceTimeoutError(`wait: no ${text !== undefined ? `text "${text}"` : `${target} ${wanted}`} within ${limit} ms`);
        await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
      }
      return b.report(text !== undefined ? `text "${text}" is on the page` : `${target} is ${wanted}`);
    }),
  );

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

  registerDeclared(reg, "dialog", ({ accept, promptText }) =>
    b.run(async () => {
      if (promptText !== undefined && !accept) throw new ServiceInvalidArgumentError("promptText: goes with accept: true");
      const svc = await b.service();
      svc.context.dialogs.answerNext({ accept, ...(promptText !== undefined ? { promptText } : {}) });
      return textResult(`the next dialog will be ${accept ? "accepted" : "dismissed"}${promptText !== undefined ? " with the given text" : ""}`);
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

  registerDeclared(reg, "evaluate", ({ expression }) =>
    b.run(async () => {
      const svc = await b.service();
      const value = await svc.page.evaluate<unknown>(expression);
      const json = JSON.stringify(value === undefined ? null : value);
      return textResult(json.length > MAX_VALUE_CHARS ? `${json.slice(0, MAX_VALUE_CHARS)}… (${json.length} characters, cut)` : json);
    }),
  );
}
