/**
 * `svc tabs [list|new URL|select N|close [N]]`: the session's tabs with stable numbers (store/tabs.ts).
 * The selected tab is kept in the session's state, so every later command (`--session` or the default
 * session) drives it: withSession restores it before the command and remembers the page it ended on.
 */
import type { Service } from "../../src/index.js";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { sessionTabStore, syncTabs, type TabStore } from "../../src/base.js";
import { rememberTabs } from "../core/tabs.js";
import type { GlobalOptions, Output } from "../core/output.js";
import { table } from "../core/output.js";
import { stateRoot, withSession } from "../core/runtime.js";
import { checkUrl } from "../core/url.js";

type Page = Service["page"];

interface TabRow {
  id: number;
  url: string;
  title: string;
  selected: boolean;
}

async function rows(svc: Service, store: TabStore): Promise<TabRow[]> {
  const file = syncTabs(store.load(), svc.context.pages().map((p) => p.targetId));
  const active = svc.context.activePage();
  const list: TabRow[] = [];
  for (const p of svc.context.pages()) {
    const title = await p.title().catch(() => "");
    list.push({ id: file.ids[p.targetId]!, url: p.url(), title, selected: p === active });
  }
  return list.sort((a, b) => a.id - b.id);
}

function tabNumber(raw: string | undefined, what: string): number {
  const n = Number(raw);
  if (raw === undefined || !raw.trim() || !Number.isInteger(n) || n <= 0) {
    throw new ServiceInvalidArgumentError(`tabs ${what}: expected a tab number from \`svc tabs\`, got "${raw ?? ""}"`);
  }
  return n;
}

function findTab(svc: Service, store: TabStore, n: number): Page {
  const file = syncTabs(store.load(), svc.context.pages().map((p) => p.targetId));
  const page = svc.context.pages().find((p) => file.ids[p.targetId] === n);
  if (!page) {
    const open = Object.values(file.ids).sort((a, b) => a - b).join(", ");
    throw new ServiceInvalidArgumentError(`no tab ${n} (open tabs: ${open || "none"})`, { hint: "see `svc tabs`" });
  }
  return page;
}

export async function tabs(g: GlobalOptions, action: string | undefined, arg: string | undefined): Promise<void> {
  const verb = action ?? "list";
  if (!["list", "new", "select", "close"].includes(verb)) {
    throw new ServiceInvalidArgumentError(`tabs: unknown action "${verb}"`, { hint: "svc tabs [list|new URL|select N|close [N]]" });
  }
  const url = verb === "new" && arg !== undefined ? checkUrl(arg) : undefined;
  const n = verb === "select" || (verb === "close" && arg !== undefined) ? tabNumber(arg, verb) : undefined;
  if (verb === "list" && arg !== undefined) throw new ServiceInvalidArgumentError(`tabs list takes no argument, got "${arg}"`);
  await withSession(g, async ({ svc, out, session, note }) => {
    const store = sessionTabStore(session!.id, stateRoot());
    if (verb === "new") {
      const page = await svc.context.newPage(url ?? "about:blank");
      note({ method: "navigate", parameters: { url: url ?? "about:blank", newTab: true }, result: { url: page.url() } });
    } else if (verb === "select") {
      svc.context.setActivePage(findTab(svc, store, n!));
    } else if (verb === "close") {
      const page = n !== undefined ? findTab(svc, store, n) : svc.page;
      if (svc.context.pages().length <= 1) throw new ServiceInvalidArgumentError("cannot close the last tab", { hint: "end the session with `svc sessions end`" });
      await page.close();
      // The page the user was on stays selected; closing it selects the most recent other tab.
      if (svc.context.activePage() === page || svc.context.activePage()?.isClosed) {
        const rest = svc.context.pages().filter((p) => p !== page && !p.isClosed);
        if (rest.length) svc.context.setActivePage(rest[rest.length - 1]!);
      }
    }
    rememberTabs(svc, store, out);
    const list = await rows(svc, store);
    const selected = list.find((t) => t.selected)?.id ?? null;
    out.result({ session: session?.id, selected, tabs: list }, () =>
      table(list.map((t) => [t.selected ? "*" : " ", String(t.id), t.url, t.title])),
    );
  });
}
