/**
 * The browser's tabs: list, open, select and close them by number. Numbers are the door's (CapabilityContext
 * tabNumber: the CLI session's tab store, the MCP client's own), given when a tab is first seen and never reused,
 * so closing tab 2 leaves tab 3 as 3. The selected tab is the one later calls drive.
 */
import { z } from "zod";
import type { Page } from "../index.js";
import { ServiceInvalidArgumentError } from "../errors.js";
import { typedUrl } from "../util/typed-url.js";
import { acts, type CapabilityContext, capability, type TabList, type TabRow } from "./declare.js";
import { URL_TEXT } from "./navigate.js";

const ACTIONS = ["list", "new", "select", "close"] as const;

function numbered(ctx: CapabilityContext, n: number): Page {
  const pages = ctx.svc.context.pages();
  const page = pages.find((p) => ctx.tabNumber(p) === n);
  if (!page) {
    const open = pages.map((p) => ctx.tabNumber(p)).sort((a, b) => a - b).join(", ");
    throw new ServiceInvalidArgumentError(`no tab ${n} (open tabs: ${open || "none"})`);
  }
  return page;
}

async function close(ctx: CapabilityContext, tab: number | undefined): Promise<void> {
  const context = ctx.svc.context;
  const page = tab !== undefined ? numbered(ctx, tab) : await ctx.page();
  if (context.pages().length <= 1) throw new ServiceInvalidArgumentError("cannot close the last tab", { hint: "end the session (svc sessions end) or close the browser (the close tool) instead" });
  await page.close();
  // The tab that was selected stays so; closing it selects the most recent other tab.
  if (context.activePage() === page || context.activePage()?.isClosed) {
    const rest = context.pages().filter((p) => p !== page && !p.isClosed);
    if (rest.length) context.setActivePage(rest[rest.length - 1]!);
  }
}

async function list(ctx: CapabilityContext, changed: boolean): Promise<TabList> {
  const context = ctx.svc.context;
  const active = context.activePage();
  const tabs: TabRow[] = [];
  for (const p of context.pages()) tabs.push({ id: ctx.tabNumber(p), url: p.url(), title: await p.title().catch(() => ""), selected: p === active });
  tabs.sort((a, b) => a.id - b.id);
  return { kind: "tabs", changed, selected: tabs.find((t) => t.selected)?.id ?? null, tabs };
}

export const tabs = capability({
  name: "tabs",
  description: "List, open, select or close tabs (by the number list shows)",
  input: {
    action: z.enum(ACTIONS).optional().describe("what to do (default list)"),
    url: URL_TEXT.optional().describe("with new: the URL the tab opens (default about:blank)"),
    tab: z.number().int().min(1).max(1_000_000).optional().describe("with select or close: the tab's number from the list (close: the selected tab when left out)"),
  },
  mcp: { cap: "tabs", annotations: acts("Tabs") },
  cli: {
    verb: "tabs",
    args: "[action] [arg]",
    usage: "[list | new [URL] | select N | close [N]]",
    // The second word is the URL of `new`, else a tab's number.
    positional: ([action, arg]) => (arg === undefined ? (action === undefined ? {} : { action }) : action === "new" ? { action, url: arg } : { action, tab: arg }),
    fills: ["action", "url", "tab"],
    description: "list, open, select or close the session's tabs; tab numbers stay put when another tab closes, and later commands drive the selected tab",
    examples: ["svc tabs", "svc tabs new https://example.com", "svc tabs select 2", "svc tabs close 3"],
    hosted: true,
    urls: { url: "any" },
  },
  check: (i) => {
    const action = i.action ?? "list";
    if (i.url !== undefined && action !== "new") return `url: only with new (got ${action})`;
    if (i.tab !== undefined && (action === "list" || action === "new")) return `tab: only with select or close (got ${action})`;
    if (action === "select" && i.tab === undefined) return "tab: select needs a tab number from the list";
    return undefined;
  },
  run: async (ctx, i) => {
    const action = i.action ?? "list";
    const context = ctx.svc.context;
    // Every open tab numbered before one closes, so numbers follow the order tabs were first seen in.
    for (const p of context.pages()) ctx.tabNumber(p);
    if (action === "new") {
      const url = i.url === undefined ? "about:blank" : typedUrl(i.url);
      const page = await context.newPage(url);
      ctx.note({ method: "navigate", parameters: { url, newTab: true }, result: { url: page.url() } });
    } else if (action === "select") context.setActivePage(numbered(ctx, i.tab!));
    else if (action === "close") await close(ctx, i.tab);
    return list(ctx, action !== "list");
  },
});
