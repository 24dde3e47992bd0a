/**
 * The capabilities' CLI context (src/capabilities/declare.ts, CapabilityContext): the session a handler runs on.
 * Tabs are numbered as `svc tabs` numbers them (the selection stays); refs, the last picture and a dialog answer
 * are the session's, history is its log. A verb that needs no browser, or only the session, gets the same
 * context, whose page parts then refuse, naming why.
 */
import { type CapabilityContext, type CliVerb, cliSpell, type DoorModel, type EmulationDoor, type Noted, type RoutesDoor, type TraceDoor } from "../../src/capabilities/index.js";
import { isCloud, ServiceInvalidArgumentError, ServiceStateError, sessionEmulationStore, sessionRouteStore, sessionScreenshotStore, sessionTabStore, type StoredSession, syncTabs } from "../../src/base.js";
import type { Page, Service } from "../../src/index.js";
import { type EmulationApplied, PageSnapshots, takeScreenshot, type TraceStarted, type TraceWritten } from "../../src/internal.js";
import { commandSignal } from "../core/cleanup.js";
import type { CliAgentWatch } from "./agent.js";
import type { CloudGlobals } from "../core/cloud.js";
import { type Output, table } from "../core/output.js";
import { type RunContext, stateRoot, withOneShot, withSession } from "../core/runtime.js";
import { rememberTabs } from "../core/tabs.js";
import { askHostFor, askSessionHost, savedWording } from "../host/ask.js";
import { searchBackend } from "../model/search-backend.js";
import { answerSessionDialog } from "../page/dialog.js";
import { elementOf } from "../page/inspect.js";
import { sessionSnapshots } from "../page/snapshot.js";

/** What the CLI door holds for one command: the verb, the session (if any), its Service and selected tab (if attached). */
export interface CliDoorState {
  g: CloudGlobals;
  v: CliVerb;
  out: Output;
  session: StoredSession | undefined;
  svc?: Service;
  /** The tab the verb drives (default: the Service's selected one). */
  selected?: Page;
  note?: (entry: Noted) => void;
  /** The models the command asks, by property, found before any browser started (its declaration's asksModel). */
  models?: ReadonlyMap<string, DoorModel> | undefined;
  /** A watched run's terminal part (CliDoor.live): its view or JSON lines, --record, --ask-human. */
  watch?: CliAgentWatch | undefined;
  /** The browser is this command's own (a one-shot): refs and pictures are numbered and compared within it. */
  oneShot?: boolean;
}

export function capabilityContext(s: CliDoorState): CapabilityContext {
  const { g, v, out, session } = s;
  const note = s.note ?? (() => {});
  const browser = (): Service => {
    if (s.svc) return s.svc;
    throw new ServiceStateError(v.capability.needs === "none" ? `${v.verb} runs with no browser: it asks for one with browse()` : `${v.verb}: attaches no page (its declaration says so)`);
  };
  const selected = () => s.selected ?? browser().page;
  const oneShot = s.oneShot === true && !session;
  const shots = session ? sessionScreenshotStore(session.id) : undefined;
  return {
    get svc() {
      return browser();
    },
    signal: commandSignal(),
    spell: cliSpell(v),
    door: "cli",
    columns: (rows) => table(rows),
    page: async (tab) => (tab === undefined ? selected() : numberedTab(browser(), session, out, tab)),
    resolve: (t, page) => elementOf(page ?? selected(), session, t),
    tabNumber: (page) => tabNumber(browser(), session, out, page),
    snapshot: (page, view) => (oneShot ? new PageSnapshots() : sessionSnapshots(session)).take(page, view),
    capture: async (page, options) => {
      const { capture, fingerprint } = await takeScreenshot(page, options, shots?.load(page.targetId));
      shots?.save(page.targetId, fingerprint);
      return capture;
    },
    note,
    emulation: async () => sessionEmulation(session),
    routes: async () => sessionRoutes(session),
    trace: async () => sessionTrace(session),
    pageLog: async (kind) => (await import("../devtools/console.js")).sessionPageLogView(browser(), session, out, kind),
    network: async () => (await import("../devtools/network.js")).sessionNetworkView(session, "network"),
    searchBackend: () => searchBackend(g, out),
    answerDialog: (answer) => answerSessionDialog(g, session, answer),
    headed: () => (session && !isCloud(session) && !session.headless ? `session ${session.id}` : undefined),
    model: (property = "model") => s.models?.get(property),
    agentWatch: async (page) => {
      if (!s.watch) throw new ServiceStateError(`${v.verb}: not a watched run (its declaration says no cli.live)`);
      return s.watch.attach(page, session);
    },
    // The attached tab; with none, the --session's selected tab, else a one-shot Chrome closed after.
    browse: (fn) => {
      if (s.svc) return fn(selected(), note);
      const run = (r: RunContext) => fn(r.svc.page, r.note);
      return g.session !== undefined ? withSession(g, run) : withOneShot(g, {}, run);
    },
  };
}

/**
 * A setting the session keeps in its file (the one truth: its emulation, store/emulation.ts; its routes,
 * store/routes.ts), which its host applies to every page, now and later (host/emulation.ts, host/fetch.ts):
 * written first, then the host asked to apply it (a control request, answered even mid-command).
 */
function sessionSetting<T>(session: StoredSession | undefined, verb: string, control: "emulation" | "routes", storeOf: (id: string, root: string) => { load(): T; save(value: T): void }) {
  if (!session || isCloud(session)) throw new ServiceInvalidArgumentError(`${verb} applies to a local session; a cloud session's browser is the platform's`, { hint: "svc sessions start (local), or --session ID" });
  const root = stateRoot();
  const store = storeOf(session.id, root);
  return {
    scope: `session ${session.id}`,
    current: () => store.load(),
    set: async (next: T) => {
      store.save(next);
      const { pages, failed, error } = await askHostFor<EmulationApplied>(root, session.id, { control }, savedWording(session.id));
      return { pages, failed, ...(error !== undefined ? { error } : {}) };
    },
  };
}

const sessionEmulation = (session: StoredSession | undefined): EmulationDoor => sessionSetting(session, "svc set", "emulation", sessionEmulationStore);
const sessionRoutes = (session: StoredSession | undefined): RoutesDoor => sessionSetting(session, "svc network route", "routes", sessionRouteStore);

/** The longest a trace's stop may take: Chrome hands the buffer over and the host writes it. */
const TRACE_STOP_TIMEOUT_MS = 180_000;

/** The session's trace, held by its host (so a full `svc` process reaches the same one), asked with control requests. */
function sessionTrace(session: StoredSession | undefined): TraceDoor {
  if (!session || isCloud(session)) throw new ServiceInvalidArgumentError("svc trace records a local session; a cloud session's browser is the platform's", { hint: "svc sessions start (local), or --session ID" });
  const root = stateRoot();
  return {
    scope: `session ${session.id}`,
    // Screenshots are the selected tab's (the one later commands drive).
    start: (categories, screenshots, maxSizeMb) =>
      askSessionHost<TraceStarted>(root, session.id, { control: "trace-start", categories, maxSizeMb, ...(screenshots ? { screenshotsOf: { target: sessionTabStore(session.id, root).load().selected } } : {}) }),
    // The CLI always names the file (an argument), checked before the stop.
    stop: (path) => askSessionHost<TraceWritten>(root, session.id, { control: "trace-stop", path: path! }, TRACE_STOP_TIMEOUT_MS),
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
  // A tab already numbered is read; only a new one makes the store be written (the tab list asks once per tab).
  const known = store.load().ids[page.targetId];
  if (known !== undefined) return known;
  const ids = (rememberTabs(svc, store, out) ?? syncTabs(store.load(), svc.context.pages().map((p) => p.targetId))).ids;
  return ids[page.targetId]!;
}
