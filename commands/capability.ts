/**
 * Runs a capability's one handler (src/capabilities/) for its CLI verb on the live session, and prints its
 * outcome: a line for a person, the outcome as JSON with `--json`. A tab the action opened is named, numbered
 * as `svc tabs` numbers it, since later commands drive it when it became the selected tab.
 */
import { type CapabilityContext, type CliVerb, cliInput, type Outcome, outcomeText } from "../src/capabilities/index.js";
import { isCloud, ServiceInvalidArgumentError, sessionTabStore, type StoredSession, syncTabs } from "../src/base.js";
import type { Page, Service } from "../src/index.js";
import { ActFailedError } from "./act.js";
import type { CloudGlobals } from "./cloud.js";
import { elementOf } from "./inspect.js";
import { type Output, table } from "./output.js";
import { type RunContext, stateRoot, withSession, withSessionOrStart } from "./runtime.js";
import { rememberTabs } from "./tabs.js";
import { checkUrl } from "./url.js";

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

export async function runCapability(g: CloudGlobals, v: CliVerb, positional: readonly string[], flags: Readonly<Record<string, unknown>>): Promise<void> {
  const input = cliInput(v, positional, flags);
  const door = v.capability.cli!;
  // A URL as typed, refused by the CLI's policy before any browser (or session) is started for it.
  for (const p of door.urls ?? []) if (typeof input[p] === "string") input[p] = checkUrl(input[p]);
  const timeout = typeof input.timeout === "number" ? input.timeout : undefined;
  const run = async ({ svc, out, session, note }: RunContext) => {
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const outcome = await v.capability.run(capabilityContext(svc, session, out, svc.page, note), input as never);
    if (outcome.kind === "act" && !outcome.result.success) throw new ActFailedError(`${v.verb} failed: ${outcome.result.message}`);
    // A history move is no act: the session's history records it as the page method it is.
    if (outcome.kind === "moved") note({ method: MOVE_METHOD[outcome.which], parameters: {}, result: { url: outcome.url, title: outcome.title } });
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    // The tab list names the tabs it opened itself.
    const opened = outcome.kind === "tabs" ? undefined : await openedTab(svc, before, session, out);
    out.result({ session: session?.id, ...json(outcome), ...(opened ? { openedTab: opened } : {}) }, () =>
      outcome.kind === "tabs" ? table(outcome.tabs.map((t) => [t.selected ? "*" : " ", String(t.id), t.url, t.title])) : `${line(outcome)}${opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : ""}`,
    );
  };
  const extras = timeout !== undefined ? { timeoutMs: timeout } : {};
  await (door.startsSession ? withSessionOrStart(g, v.verb, run, extras) : withSession(g, run, extras));
}

/** The handler's view of the session: `--tab N` is the tab `svc tabs` numbers N (the selection stays), refs are the session's. */
export function capabilityContext(svc: Service, session: StoredSession | undefined, out: Output, selected: Page = svc.page, note: RunContext["note"] = () => {}): CapabilityContext {
  return {
    svc,
    page: async (tab) => (tab === undefined ? selected : numberedTab(svc, session, out, tab)),
    resolve: (t, page) => elementOf(page ?? selected, session, t),
    tabNumber: (page) => tabNumber(svc, session, out, page),
    record: (method, parameters, result) => note({ method, parameters, result }),
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

/** The page's number in the session's tab store (numbered and saved now when it is new). */
function tabNumber(svc: Service, session: StoredSession | undefined, out: Output, page: Page): number {
  if (!session) throw new ServiceInvalidArgumentError("tabs: needs a session (svc tabs numbers its tabs)");
  const store = sessionTabStore(session.id, stateRoot());
  const ids = (rememberTabs(svc, store, out) ?? syncTabs(store.load(), svc.context.pages().map((p) => p.targetId))).ids;
  return ids[page.targetId]!;
}

const MOVE_METHOD = { back: "goBack", forward: "goForward", reload: "reload" } as const;

function json(o: Outcome): Record<string, unknown> {
  if (o.kind === "act") return { result: o.result };
  if (o.kind === "report") return o.data;
  if (o.kind === "tabs") return { selected: o.selected, tabs: o.tabs };
  const { kind: _kind, ...rest } = o;
  return rest;
}

/** `https://x/  Title` plus `  (HTTP 404)` when the server answered an error status. */
function pageLine(url: string, title: string, status: number | null): string {
  return `${url}${title ? `  ${title}` : ""}${status !== null && status >= 400 ? `  (HTTP ${status})` : ""}`;
}

function line(o: Exclude<Outcome, { kind: "tabs" }>): string {
  // The act's message is "<method> succeeded: <description>" plus what the page holds afterwards, if it says.
  if (o.kind === "act") return `done: ${o.result.message.replace(/^\w+ succeeded: /, "")}`;
  if (o.kind === "moved") return pageLine(o.url, o.title, null);
  if (o.kind === "navigated") return pageLine(o.url, o.title, o.status);
  return outcomeText(o);
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
