/**
 * The page tools: navigate, snapshot, the verbs on a ref (or any selector svc accepts), screenshot, tabs.
 * Each verb is one Action run through service.act (the same actionability and history as `svc act --action`);
 * its result is the page after it — the snapshot, or what changed since the last one.
 */
import { type Action, ServiceInvalidArgumentError } from "../index.js";
import { callOn } from "../internal.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";
import type { ToolName } from "./tools.js";

function action(selector: string, method: Action["method"], args: string[] = []): Action {
  return { selector, description: "", method, arguments: args };
}

/** navigate and `tabs new` open what the browser's URL policy lets through (McpBrowser's Service, index.ts). */
export function registerPageTools(reg: Registrar, b: McpBrowser): void {
  const verb = (name: ToolName, toAction: (a: Record<string, unknown>) => Action | Promise<Action | string>) =>
    registerDeclared(reg, name, (args: Record<string, unknown>) =>
      b.run(async () => {
        const svc = await b.service();
        const a = await toAction(args);
        if (typeof a === "string") return b.report(a);
        const r = await svc.act(a);
        return b.report(r.message);
      }),
    );

  registerDeclared(
    reg,
    "navigate",
    ({ url }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.page.goto(url);
        return b.report(`navigated to ${r.url}${r.status && r.status >= 400 ? ` (HTTP ${r.status})` : ""}`);
      }),
  );

  registerDeclared(
    reg,
    "snapshot",
    ({ interactive, maxTokens, selector, delta, from }) =>
      b.run(async () => {
        const text = await b.snapshot({
          ...(interactive ? { interactiveOnly: true } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
          ...(selector ? { selector } : {}),
          ...(delta ? { delta: true } : {}),
          ...(from !== undefined ? { from } : {}),
        });
        return textResult(text);
      }),
  );

  verb("click", (a) => action(a.target as string, a.double ? "doubleClick" : "click"));
  verb("fill", (a) => action(a.target as string, "fill", [a.value as string]));
  verb("type", (a) => action(a.target as string, "type", [a.text as string]));
  verb("press", (a) =>
    action((a.target as string | undefined) ?? "", "press", [a.key as string]),
  );
  verb("select", (a) => action(a.target as string, "selectOptionFromDropdown", typeof a.option === "string" ? [a.option] : (a.option as string[])));
  verb("hover", (a) => action(a.target as string, "hover"));
  verb("check", async (a) => {
    const want = a.checked !== false;
    const now = await isChecked(b, a.target as string);
    if (now === want) return `already ${want ? "checked" : "unchecked"}`;
    return action(a.target as string, "click");
  });
  verb(
    "scroll",
    (a) => {
      const to = String(a.to).trim().toLowerCase();
      const sel = (a.target as string | undefined) ?? "";
      if (to === "down") return action(sel, "nextChunk");
      if (to === "up") return action(sel, "prevChunk");
      if (/^\d+(\.\d+)?%$/.test(to)) return action(sel, "scrollTo", [to]);
      throw new ServiceInvalidArgumentError(`to: expected "down", "up" or a percentage such as "50%", got "${String(a.to)}"`);
    },
  );

  registerDeclared(
    reg,
    "screenshot",
    ({ fullPage }) =>
      b.run(async (): Promise<ToolResult> => {
        const svc = await b.service();
        const png = await svc.page.screenshot({ fullPage: fullPage === true, type: "png" });
        return { content: [{ type: "image", data: png.toString("base64"), mimeType: "image/png" }] };
      }),
  );

  registerDeclared(
    reg,
    "tabs",
    ({ action: what = "list", url, tab }) =>
      b.run(async () => {
        const svc = await b.service();
        const ctx = svc.context;
        // Number every open tab before one closes, so numbers follow the order tabs were first seen in.
        for (const p of ctx.pages()) b.tabNumber(p);
        const pick = () => {
          if (tab === undefined) throw new ServiceInvalidArgumentError(`tab: ${what} needs a tab number from the list`);
          const p = ctx.pages().find((x) => b.tabNumber(x) === tab);
          if (!p) throw new ServiceInvalidArgumentError(`tab: no open tab ${tab}`);
          return p;
        };
        if (what === "new") await ctx.newPage(url);
        else if (what === "select") ctx.setActivePage(pick());
        else if (what === "close") await pick().close();
        const active = ctx.activePage();
        const list = (await Promise.all(ctx.pages().map(async (p) => `${p === active ? "*" : " "} ${b.tabNumber(p)} ${await p.title().catch(() => "")} ${p.url()}`))).join("\n");
        return what === "list" ? textResult(list) : b.report(list);
      }),
  );
}

/**
 * Whether the target is checked now (a checkbox or radio, or an element with aria-checked); undefined when it cannot
 * say. Read from the element, not from a snapshot: one the model did not see would become the base of its next delta.
 */
async function isChecked(b: McpBrowser, target: string): Promise<boolean | undefined> {
  const el = await b.resolve(target);
  const state = await callOn<string>(el, function (this: Element) {
    if (this instanceof HTMLInputElement && (this.type === "checkbox" || this.type === "radio")) return String(this.checked);
    return this.getAttribute("aria-checked") ?? "";
  });
  return state === "true" ? true : state === "false" ? false : undefined;
}
