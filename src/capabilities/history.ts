/**
 * Moves in the tab's history: back, forward and reload, each bounded by its timeout. Back or forward with
 * nowhere to go is an error naming it, not a silent no-op, so a caller never reads the same page as moved.
 */
import { ServiceNavigationError } from "../errors.js";
import { type Capability, capability, moves } from "./declare.js";
import { TAB, TIMEOUT } from "./element.js";

function historyMove(which: "back" | "forward" | "reload", description: string, cli: string) {
  return capability({
    name: which,
    description,
    input: { timeout: TIMEOUT, tab: TAB },
    mcp: { cap: "core", annotations: moves(description.replace(/ in .*/, "")) },
    cli: { verb: which, args: "", description: cli, examples: [`svc ${which}`], hosted: true },
    run: async (ctx, i) => {
      const page = await ctx.page(i.tab);
      const options = i.timeout !== undefined ? { timeout: i.timeout } : {};
      if (which === "reload") await page.reload(options);
      else if (!(which === "back" ? await page.goBack(options) : await page.goForward(options))) {
        throw new ServiceNavigationError(`${which}: no ${which === "back" ? "previous" : "next"} page in this tab's history`);
      }
      return { kind: "moved", which, url: page.url(), title: await page.title().catch(() => "") };
    },
  });
}

export const HISTORY_CAPABILITIES: readonly Capability[] = [
  historyMove("back", "Go back in the tab's history", "go back in the selected tab's history"),
  historyMove("forward", "Go forward in the tab's history", "go forward in the selected tab's history"),
  historyMove("reload", "Reload the tab", "reload the session's selected tab"),
] as readonly Capability[];
