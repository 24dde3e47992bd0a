/** turndown-plugin-gfm 1.x ships no types: its five plugins, each a turndown plugin function. */
declare module "turndown-plugin-gfm" {
  import type TurndownService from "turndown";

  /** All of the below. */
  export const gfm: TurndownService.Plugin;
  /** Tables with a heading row become pipe tables; others are kept as HTML. */
  export const tables: TurndownService.Plugin;
  /** `<del>`, `<s>`, `<strike>` → `~text~`. */
  export const strikethrough: TurndownService.Plugin;
  /** `<li><input type="checkbox">` → `[ ]` / `[x]`. */
  export const taskListItems: TurndownService.Plugin;
  /** GitHub's `<div class="highlight-source-LANG"><pre>` → a fenced block with that language. */
  export const highlightedCodeBlock: TurndownService.Plugin;
}
