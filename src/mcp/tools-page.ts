/**
 * The page tools: navigate, tabs (the verbs on one element, snapshot and screenshot are generated from their
 * capability declarations, capabilities.ts). A result that changes the page is the page after it.
 */
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

/** navigate and `tabs new` open what the browser's URL policy lets through (McpBrowser's Service, index.ts). */
export function registerPageTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(
    reg,
    "navigate",
    ({ url, tab }) =>
      b.run(async () => {
        const page = await b.page(tab);
        const r = await page.goto(url);
        return b.report(`navigated to ${r.url}${r.status && r.status >= 400 ? ` (HTTP ${r.status})` : ""}`, page);
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
