/**
 * Runs a capability's one handler (src/capabilities/) for its CLI verb on the live session, and prints its
 * outcome: a line for a person, the outcome as JSON with `--json`. A tab the action opened is named, numbered
 * as `svc tabs` numbers it, since later commands drive it when it became the selected tab.
 */
import { type CapabilityContext, type CliVerb, cliInput, cliSpell, type EmulationDoor, type Noted, type Outcome, outcomeText } from "../../src/capabilities/index.js";
import { isCloud, ServiceInvalidArgumentError, ServiceStateError, sessionEmulationStore, sessionScreenshotStore, sessionTabStore, type StoredSession, syncTabs, touchSession } from "../../src/base.js";
import type { Page, Service } from "../../src/index.js";
import { type EmulationApplied, PageSnapshots, takeScreenshot } from "../../src/internal.js";
import { ActFailedError } from "../core/errors.js";
import { commandSignal } from "../core/cleanup.js";
import type { CloudGlobals } from "../core/cloud.js";
import { askHostFor, savedWording } from "../host/ask.js";
import { elementOf } from "../page/inspect.js";
import { type GlobalOptions, type Output, table } from "../core/output.js";
import { checkOutputPath, writeOutputFile } from "../core/output-file.js";
import { checkUrl, type LaunchFlags, output, resolveSession, type RunContext, stateRoot, withLiveOrOneShot, withSession, withSessionOrStart } from "../core/runtime.js";
import { sessionSnapshots } from "../page/snapshot.js";
import { rememberTabs } from "../core/tabs.js";

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

export async function runCapability(g: CloudGlobals, v: CliVerb, positional: readonly string[], flags: Readonly<Record<string, unknown>>): Promise<void> {
  const input = cliInput(v, positional, flags);
  const alone = await v.capability.withoutBrowser?.(input as never);
  if (alone) return output(g).result(json(alone), () => line(alone));
  if (v.capability.cli?.attaches === false) return runUnattached(g, v, input);
  const door = v.capability.cli!;
  // A URL as typed, refused by the CLI's policy before any browser (or session) is started for it.
  for (const p of door.urls ?? []) if (typeof input[p] === "string") input[p] = checkUrl(input[p]);
  const url = door.opensUrl && typeof input.url === "string" ? checkUrl(input.url) : undefined;
  if (door.opensUrl && url === undefined && input.new) throw new ServiceInvalidArgumentError(`--new applies to ${v.verb} URL`, { hint: `svc ${v.verb} https://example.com --new` });
  // The output file is checked before any work, and the handler reports the absolute path it is written to.
  const path = door.output ? checkOutputPath(String(input[door.output.property] ?? door.output.fallback(input))) : undefined;
  if (door.output) input[door.output.property] = path;
  const timeout = typeof input.timeout === "number" ? input.timeout : undefined;
  const run = async ({ svc, out, session, note }: RunContext) => {
    if (url !== undefined) {
      await svc.page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: svc.page.url() } });
    }
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const outcome = await v.capability.run(capabilityContext(svc, session, out, v, svc.page, { note, oneShot: url !== undefined }), input as never);
    if (outcome.kind === "act" && !outcome.result.success) throw new ActFailedError(`${v.verb} failed: ${outcome.result.message}`);
    // A history move is no act: the session's history records it as the page method it is.
    if (outcome.kind === "moved") note({ method: MOVE_METHOD[outcome.which], parameters: {}, result: { url: outcome.url, title: outcome.title } });
    if (path !== undefined && outcome.kind === "report" && outcome.image) writeOutputFile(path, outcome.image.data);
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    // The tab list names the tabs it opened itself.
    const opened = outcome.kind === "tabs" ? undefined : await openedTab(svc, before, session, out);
    out.result({ session: session?.id, ...json(outcome), ...(opened ? { openedTab: opened } : {}) }, () =>
      outcome.kind === "tabs" ? table(outcome.tabs.map((t) => [t.selected ? "*" : " ", String(t.id), t.url, t.title])) : `${line(outcome)}${opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : ""}`,
    );
  };
  const extras = timeout !== undefined ? { timeoutMs: timeout } : {};
  if (url !== undefined) await withLiveOrOneShot(g, input as LaunchFlags & { new?: boolean }, run, extras);
  else await (door.startsSession ? withSessionOrStart(g, v.verb, run, extras) : withSession(g, run, extras));
}

/** A verb that keeps the session's state for its host to apply: the session, and no Service on its Chrome. */
async function runUnattached(g: GlobalOptions, v: CliVerb, input: Record<string, unknown>): Promise<void> {
  const root = stateRoot();
  const session = touchSession(await resolveSession(root, g.session), root);
  const unattached = () => new ServiceStateError(`${v.verb}: attaches no page (its declaration says so)`);
  const ctx: CapabilityContext = {
    get svc(): never {
      throw unattached();
    },
    signal: commandSignal(),
    spell: cliSpell(v),
    page: () => Promise.reject(unattached()),
    tabNumber: () => {
      throw unattached();
    },
    resolve: () => Promise.reject(unattached()),
    snapshot: () => Promise.reject(unattached()),
    capture: () => Promise.reject(unattached()),
    note: () => {},
    door: "cli",
    columns: (rows) => table(rows),
    emulation: async () => sessionEmulation(session),
    pageLog: () => Promise.reject(unattached()),
    network: () => Promise.reject(unattached()),
  };
  const outcome = await v.capability.run(ctx, input as never);
  output(g).result({ session: session.id, ...json(outcome) }, () => line(outcome));
}

/** The handler's view of the session: `--tab N` is the tab `svc tabs` numbers N (the selection stays), refs are the session's. */
export function capabilityContext(svc: Service, session: StoredSession | undefined, out: Output, v: CliVerb, selected: Page = svc.page, door: { note?: (e: Noted) => void; oneShot?: boolean } = {}): CapabilityContext {
  // A browser for this command only has no session to keep refs or pictures in: they number and compare this one.
  const oneShot = door.oneShot === true && !session;
  const shots = session ? sessionScreenshotStore(session.id) : undefined;
  return {
    svc,
    signal: commandSignal(),
    spell: cliSpell(v),
    page: async (tab) => (tab === undefined ? selected : numberedTab(svc, session, out, tab)),
    resolve: (t, page) => elementOf(page ?? selected, session, t),
    tabNumber: (page) => tabNumber(svc, session, out, page),
    snapshot: (page, view) => (oneShot ? new PageSnapshots() : sessionSnapshots(session)).take(page, view),
    capture: async (page, options) => {
      const { capture, fingerprint } = await takeScreenshot(page, options, shots?.load(page.targetId));
      shots?.save(page.targetId, fingerprint);
      return capture;
    },
    note: door.note ?? (() => {}),
    door: "cli",
    columns: (rows) => table(rows),
    emulation: async () => sessionEmulation(session),
    pageLog: async (kind) => (await import("../devtools/console.js")).sessionPageLogView(svc, session, out, kind),
    network: async () => (await import("../devtools/network.js")).sessionNetworkView(session, "network"),
  };
}

/** The session's emulation: its file (the one truth, store/emulation.ts), which its host applies to every page, now and later (host-emulation.ts). */
function sessionEmulation(session: StoredSession | undefined): EmulationDoor {
  if (!session || isCloud(session)) throw new ServiceInvalidArgumentError("svc set applies to a local session; a cloud session's browser is the platform's", { hint: "svc sessions start (local), or --session ID" });
  const root = stateRoot();
  const store = sessionEmulationStore(session.id, root);
  return {
    scope: `session ${session.id}`,
    current: () => store.load(),
    // Written first, then the host asked to apply it (a control request, answered even mid-command).
    set: async (next) => {
      store.save(next);
      const { pages, failed, error } = await askHostFor<EmulationApplied>(root, session.id, { control: "emulation" }, savedWording(session.id));
      return { pages, failed, ...(error !== undefined ? { error } : {}) };
    },
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

function line(o: Outcome): string {
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
