/**
 * The session host's keeper role: between commands no client is attached, and a dialog opening then is Chrome's own,
 * which no DevTools client can answer later and which blocks the renderer, so the next command would hang. So the
 * host stays attached to every page, answers dialogs no command took within YIELD_MS, records downloads, logs and
 * requests, applies emulation and routes, and holds the trace.
 */
import { BrowserTrace, CdpConnection, type CdpSession, DialogHandler, DownloadWatcher, pageViewport } from "../../src/internal.js";
import type { LocalBrowserLaunchOptions } from "../../src/index.js";
import { appendHistory, contextScope, type SessionRecord, sessionDialogAnswer, sessionOwnTabs } from "../../src/base.js";
import { HostEmulation } from "./emulation.js";
import { HostFetch, type ProxyCredentials } from "./fetch.js";
import { HostNetwork } from "./network.js";
import { HostView } from "./view.js";
import { PageLogRecorder } from "./page-log.js";

/** How long a running command has to answer a dialog itself. */
const YIELD_MS = 300;
/** The longest a new tab waits, paused, for this keeper to watch it. */
const RESUME_BOUND_MS = 2000;

/** The keeper's connection (it closes when Chrome ends), the session's emulation and routes it applies, its network log, its trace, its live view (`svc view`, started on demand). */
export interface KeptSession {
  connection: CdpConnection;
  emulation: HostEmulation;
  fetch: HostFetch;
  network: HostNetwork;
  trace: BrowserTrace;
  view: HostView;
}

/**
 * Attaches to every page of the session's Chrome with dialogs watched, downloads and the page log recorded and
 * the session's emulation applied (`launch`: what the host launched Chrome with, which sizes its pages); resolves once that is so (a dialog that opened before, with no command
 * attached, could be answered by nobody).
 */
export async function keepSession(record: SessionRecord, root: string, opts: { proxyCredentials?: ProxyCredentials | undefined; launch?: LocalBrowserLaunchOptions | undefined }): Promise<KeptSession> {
  const connection = await CdpConnection.connect(record.wsEndpoint);
  let emulation: HostEmulation;
  let fetch: HostFetch;
  try {
    const { userAgent } = await connection.root.send("Browser.getVersion");
    emulation = new HostEmulation({ root: connection.root, browserUserAgent: userAgent, sessionId: record.id, stateRoot: root, viewport: opts.launch ? pageViewport(opts.launch) : undefined, browserContextId: record.browserContextId });
    fetch = new HostFetch({ sessionId: record.id, stateRoot: root, proxyCredentials: opts.proxyCredentials });
  } catch (e) {
    await connection.close().catch(() => {});
    throw e;
  }
  const dialogs = new DialogHandler(record.dialog ? { action: record.dialog } : undefined);
  const stored = sessionDialogAnswer(record.id, root);
  dialogs.answerFrom(() => stored.take());
  dialogs.onDialog((d) => {
    const entry = { method: "dialog", parameters: { type: d.type, message: d.message, url: d.url }, result: { accepted: d.accepted, ...(d.promptText !== undefined ? { promptText: d.promptText } : {}), by: d.by }, timestamp: new Date().toISOString() };
    try {
      appendHistory(record.id, [entry], root);
    } catch {
      // the history is a record, not a reason to stop answering dialogs
    }
  });
  const pageLog = new PageLogRecorder({ id: record.id, root });
  const network = new HostNetwork({ id: record.id, root });
  const view = new HostView({ record, root });
  connection.onClose(() => (pageLog.close(), network.close(), void view.close()));
  const enabling: Promise<unknown>[] = [];
  const pages = new Map<string, CdpSession>();
  // A user's own Chrome: only the session's tabs are watched; another is resumed and left alone, held only until
  // a command of this host adopts it (a tab it just created, reported here before the command knew its id).
  // A Chrome shared with other sessions: only the tabs of the session's browser context.
  const own = record.ownTabs ? sessionOwnTabs(record.id, root) : undefined;
  const scope = own ?? (record.browserContextId ? contextScope(record.browserContextId) : undefined);
  const foreign = new Map<string, () => void>();
  own?.onAdopt((targetId) => {
    foreign.get(targetId)?.();
    foreign.delete(targetId);
  });
  connection.root.on("Target.attachedToTarget", (e) => {
    const session = connection.session(e.sessionId);
    if (!session) return;
    const resume = () => {
      if (e.waitingForDebugger) session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
    };
    if (e.targetInfo.type !== "page") return resume();
    if (scope && !scope.owns(e.targetInfo.targetId, e.targetInfo.openerId, e.targetInfo.browserContextId)) {
      foreign.set(e.targetInfo.targetId, () => keep(e, session, () => {}));
      return resume();
    }
    keep(e, session, resume);
  });
  const keep = (e: { sessionId: string; targetInfo: { targetId: string } }, session: CdpSession, resume: () => void) => {
    pages.set(e.sessionId, session);
    dialogs.watch(session, { yieldMs: YIELD_MS });
    // Dialogs watched and emulation applied before the page runs. Runtime.enable and Network.enable are sent before
    // it resumes (Chrome keeps a session's order) but not awaited: on a tab paused before its first document Chrome
    // may answer only once the page runs. Whatever fails or stalls, the page stays paused at most RESUME_BOUND_MS.
    const watched = Promise.all([session.send("Page.enable"), emulation.track(session), fetch.track(session)]).catch(() => {});
    const logging = pageLog.watch(session, e.targetInfo.targetId).catch(() => {});
    const recording = network.watch(session, e.targetInfo.targetId).catch(() => {});
    enabling.push(watched, logging, recording);
    void Promise.race([watched, new Promise((r) => setTimeout(r, RESUME_BOUND_MS).unref())]).then(resume);
  };
  connection.root.on("Target.detachedFromTarget", (e) => {
    if (e.targetId) foreign.delete(e.targetId);
    pages.delete(e.sessionId);
    emulation.forget(e.sessionId);
    fetch.forget(e.sessionId);
  });
  // Chrome reports the pages open now before it answers setAutoAttach; a later one waits for this keeper.
  await connection.root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  await Promise.all(enabling);
  if (record.downloadsDir) await DownloadWatcher.start(connection.root, record.downloadsDir).catch(() => {});
  return { connection, emulation, fetch, network, trace: new BrowserTrace({ root: connection.root, pages: () => pages.values() }), view };
}
