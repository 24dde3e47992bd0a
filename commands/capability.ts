/**
 * Runs a capability's one handler (src/capabilities/) for its CLI verb on the live session, and prints its
 * outcome: a line for a person, the outcome as JSON with `--json`. A tab the action opened is named, numbered
 * as `svc tabs` numbers it, since later commands drive it when it became the selected tab.
 */
import { type CapabilityContext, type CliVerb, cliInput, type Outcome, outcomeText } from "../src/capabilities/index.js";
import { isCloud, ServiceInvalidArgumentError, sessionTabStore, type StoredSession } from "../src/base.js";
import type { Page, Service } from "../src/index.js";
import { ActFailedError } from "./act.js";
import { pageLine } from "./goto.js";
import { elementOf } from "./inspect.js";
import { type GlobalOptions, type Output, table } from "./output.js";
import { stateRoot, withSession } from "./runtime.js";
import { rememberTabs } from "./tabs.js";

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

export async function runCapability(g: GlobalOptions, v: CliVerb, positional: readonly string[], flags: Readonly<Record<string, unknown>>): Promise<void> {
  const input = cliInput(v, positional, flags);
  const timeout = typeof input.timeout === "number" ? input.timeout : undefined;
  await withSession(g, async ({ svc, out, session, note }) => {
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const outcome = await v.capability.run(capabilityContext(svc, session, out), input as never);
    if (outcome.kind === "act" && !outcome.result.success) throw new ActFailedError(`${v.verb} failed: ${outcome.result.message}`);
    // A history move is no act: the session's history records it as the page method it is.
    if (outcome.kind === "moved") note({ method: MOVE_METHOD[outcome.which], parameters: {}, result: { url: outcome.url, title: outcome.title } });
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    const opened = await openedTab(svc, before, session, out);
    out.result({ session: session?.id, ...json(outcome), ...(opened ? { openedTab: opened } : {}) }, () => `${line(outcome)}${opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : ""}`);
  }, timeout !== undefined ? { timeoutMs: timeout } : {});
}

/** The handler's view of the session: `--tab N` is the tab `svc tabs` numbers N (the selection stays), refs are the session's. */
export function capabilityContext(svc: Service, session: StoredSession | undefined, out: Output, selected: Page = svc.page): CapabilityContext {
  return {
    svc,
    page: async (tab) => (tab === undefined ? selected : numberedTab(svc, session, out, tab)),
    resolve: (t, page) => elementOf(page ?? selected, session, t),
    door: "cli",
    columns: (rows) => table(rows),
    pageLog: async (kind) => (await import("./console.js")).sessionPageLogView(svc, session, out, kind),
    network: async () => (await import("./network.js")).sessionNetworkView(session, "network"),
  };
}

function numberedTab(svc: Service, session: StoredSession | undefined, out: Output, tab: number): Page {
  if (!session || isCloud(session)) throw new ServiceInvalidArgumentError("--tab: needs a local session (svc tabs numbers its tabs)");
  const ids = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out)?.ids ?? {};
  const targetId = Object.keys(ids).find((id) => ids[id] === tab);
  const page = svc.context.pages().find((p) => p.targetId === targetId);
  if (!page) throw new ServiceInvalidArgumentError(`--tab: no open tab ${tab} (svc tabs lists them)`);
  return page;
}

const MOVE_METHOD = { back: "goBack", forward: "goForward", reload: "reload" } as const;

function json(o: Outcome): Record<string, unknown> {
  if (o.kind === "act") return { result: o.result };
  if (o.kind === "report") return o.data;
  const { kind: _kind, ...rest } = o;
  return rest;
}

function line(o: Outcome): string {
  // The act's message is "<method> succeeded: <description>" plus what the page holds afterwards, if it says.
  if (o.kind === "act") return `done: ${o.result.message.replace(/^\w+ succeeded: /, "")}`;
  return o.kind === "moved" ? pageLine(o.url, o.title, null) : outcomeText(o);
}

async function openedTab(svc: Service, before: ReadonlySet<string>, session: StoredSession | undefined, out: Output): Promise<{ id: number; url: string; selected: boolean } | undefined> {
  const page = svc.context.pages().find((p) => !before.has(p.targetId));
  if (!page || !session || isCloud(session)) return undefined;
  const file = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out);
  const id = file?.ids[page.targetId];
  if (id === undefined) return undefined;
  // window.open(url) makes the tab before its document commits: name the URL it opened, not the empty one.
  return { id, url: await page.committedUrl(OPENED_URL_WAIT_MS), selected: svc.context.activePage() === page };
}
