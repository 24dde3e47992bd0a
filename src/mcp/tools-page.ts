/**
 * The page tools: snapshot and screenshot (navigate, tabs and the verbs on one element are generated from their
 * capability declarations, capabilities.ts).
 */
import { type McpBrowser, type ToolResult, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

export function registerPageTools(reg: Registrar, b: McpBrowser): void {
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
}
