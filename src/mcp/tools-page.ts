/**
 * The page tools: navigate, snapshot, screenshot, tabs (the verbs on one element are generated from their
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
    "snapshot",
    ({ interactive, maxTokens, selector, delta, from, tab }) =>
      b.run(async () => {
        const text = await b.snapshot({
          ...(interactive ? { interactiveOnly: true } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
          ...(selector ? { selector } : {}),
          ...(delta ? { delta: true } : {}),
          ...(from !== undefined ? { from } : {}),
        }, await b.page(tab));
        return textResult(text);
      }),
  );

  registerDeclared(
    reg,
    "screenshot",
    ({ fullPage, maxSize, ifChanged, tab }) =>
      b.run(async (): Promise<ToolResult> => {
        const shot = await (await b.page(tab)).capture({ fullPage: fullPage === true, type: "png", ...(maxSize !== undefined ? { maxSize } : {}), ifChanged: ifChanged === true });
        if (shot.unchanged) return textResult("unchanged: the page looks as at this tab's last screenshot");
        const size = `${shot.width}×${shot.height} px, scale ${shot.scale}: page px = image px / ${shot.scale}`;
        return { content: [{ type: "image", data: shot.data.toString("base64"), mimeType: "image/png" }, { type: "text", text: size }] };
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
