/**
 * One platform session's recorder: its own CDP connection to the session's Chrome (svc's CdpConnection),
 * auto-attached (flattened) to every tab — those open now and every later one, whoever opens it — and in
 * each tab to its out-of-process iframes. It keeps, bounded (session-logs.ts):
 * - the log: navigations (Page.frameNavigated, Page.navigatedWithinDocument), console messages and
 *   uncaught exceptions of the page's own world (Runtime.consoleAPICalled, Runtime.exceptionThrown),
 *   failed requests (Network.loadingFailed) and HTTP responses ≥ 400 (Network.responseReceived, without
 *   headers), downloads (Browser.downloadWillBegin, Browser.downloadProgress when it ends) and what the
 *   server refused (svc.*);
 * - the recording: rrweb events from each tab's top-level documents (session-recorder-rrweb.ts);
 * - and the session's downloads in its own folder (session-recorder-downloads.ts).
 * A new tab waits (waitForDebuggerOnStart) until the recorder is set up in it, so its first document is
 * recorded. The connection ends when the session ends (`close`); what was kept stays readable.
 */
import type { Protocol } from "devtools-protocol";
import { CdpConnection, type CdpSession } from "../browser/cdp/connection.js";
import { DownloadGuard } from "./session-recorder-downloads.js";
import { installRecorder, isRecorderBinding, RECORDER_WORLD, recordingEvent } from "./session-recorder-rrweb.js";
import { BoundedList, eventEntry, LOG_LIMITS, RECORDING_LIMITS, type SessionLog } from "./session-logs.js";

export interface SessionRecording {
  data: Record<string, unknown>;
  sessionId: string;
  timestamp: number;
  type: number;
}

/** rrweb's event type for custom events: where a truncated recording says so. */
const RRWEB_CUSTOM = 5;

export class SessionRecorder {
  private readonly log = new BoundedList<SessionLog>(LOG_LIMITS);
  private readonly recording = new BoundedList<SessionRecording>(RECORDING_LIMITS);
  private connection: CdpConnection | undefined;
  private downloads: DownloadGuard | undefined;
  private pages = 0;
  /** `<cdp session>:<context id>` of the recorder's isolated worlds. */
  private readonly recorderWorlds = new Set<string>();
  /** Which tab each frame is in (for download events, which name only the frame). */
  private readonly pageOfFrame = new Map<string, number>();

  constructor(
    readonly sessionId: string,
    /** Where the recorder points Chrome's downloads; undefined: it leaves them as they are. */
    private readonly downloadsDir: string | undefined,
  ) {}

  async start(wsEndpoint: string): Promise<void> {
    const connection = await CdpConnection.connect(wsEndpoint);
    this.connection = connection;
    const root = connection.root;
    try {
      if (this.downloadsDir) this.downloads = new DownloadGuard(root, this.downloadsDir, (method, params) => this.note(-1, method, params));
      root.on("Target.attachedToTarget", (p) => this.attached(p, undefined));
      root.on("Browser.downloadWillBegin", (p) => this.note(this.pageOfFrame.get(p.frameId) ?? -1, "Browser.downloadWillBegin", { frameId: p.frameId, guid: p.guid, url: p.url, suggestedFilename: p.suggestedFilename }, { frameId: p.frameId }));
      root.on("Browser.downloadProgress", (p) => {
        if (p.state !== "inProgress") this.note(-1, "Browser.downloadProgress", { guid: p.guid, state: p.state, receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
      });
      await this.downloads?.start();
      await root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    } catch (e) {
      await connection.close();
      throw e;
    }
  }

  /** Ends the connection (the session ends); the log and recording stay. */
  async close(): Promise<void> {
    await this.connection?.close();
  }

  /** The log, oldest first; when entries were dropped, a first `svc.entriesDropped` entry says how many. */
  logs(): SessionLog[] {
    const list = this.log.list();
    if (!this.log.dropped) return list;
    const dropped: SessionLog = { method: "svc.entriesDropped", pageId: -1, sessionId: this.sessionId, request: { params: { dropped: this.log.dropped, limits: LOG_LIMITS }, rawBody: "", timestamp: Date.now() } };
    return [dropped, ...list];
  }

  /** The rrweb events in order; when events were not taken, a last custom event (tag `svc.truncated`) says how many. */
  events(): SessionRecording[] {
    const list = this.recording.list();
    if (!this.recording.dropped) return list;
    const last = list.at(-1)?.timestamp ?? Date.now();
    return [...list, { type: RRWEB_CUSTOM, data: { tag: "svc.truncated", payload: { dropped: this.recording.dropped, limits: RECORDING_LIMITS } }, sessionId: this.sessionId, timestamp: last }];
  }

  /** Bytes held in memory by the log and the recording. */
  get bytes(): number {
    return this.log.bytes + this.recording.bytes;
  }

  /** Frees the log and the recording (the server keeps too much of ended sessions). */
  drop(): void {
    this.log.clear();
    this.recording.clear();
  }

  private note(pageId: number, method: string, params: Record<string, unknown>, ids?: { frameId?: string | undefined; loaderId?: string | undefined }): void {
    const { entry, bytes } = eventEntry(this.sessionId, pageId, method, params, ids);
    this.log.push(entry, bytes);
  }

  private attached(p: Protocol.Target.AttachedToTargetEvent, parentPage: number | undefined): void {
    const session = this.connection?.session(p.sessionId);
    if (!session) return;
    const resume = () => {
      if (p.waitingForDebugger) session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
    };
    const type = p.targetInfo.type;
    if (type !== "page" && type !== "iframe") return resume();
    const pageId = type === "page" ? this.pages++ : (parentPage ?? -1);
    session.on("Target.attachedToTarget", (child) => this.attached(child, pageId));
    this.listen(session, pageId);
    // A tenant's connection leaving resets Chrome's download behavior: each new tab sets it again.
    if (type === "page") void this.downloads?.apply().catch(() => {});
    const setup = Promise.all([
      session.send("Page.enable"),
      session.send("Runtime.enable"),
      session.send("Network.enable"),
      type === "page" ? installRecorder(session) : undefined,
      session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ]);
    // Whatever failed (a tab closing meanwhile), the target must not stay paused.
    void setup.catch(() => {}).finally(resume);
  }

  private listen(session: CdpSession, pageId: number): void {
    const world = (contextId: number | undefined) => contextId !== undefined && this.recorderWorlds.has(`${session.sessionId}:${contextId}`);
    session.on("Runtime.executionContextCreated", ({ context }) => {
      if (context.name === RECORDER_WORLD) this.recorderWorlds.add(`${session.sessionId}:${context.id}`);
    });
    session.on("Runtime.executionContextDestroyed", ({ executionContextId }) => this.recorderWorlds.delete(`${session.sessionId}:${executionContextId}`));
    session.on("Runtime.executionContextsCleared", () => {
      for (const k of this.recorderWorlds) if (k.startsWith(`${session.sessionId}:`)) this.recorderWorlds.delete(k);
    });
    session.on("Runtime.bindingCalled", (p) => {
      if (!isRecorderBinding(p.name) || !world(p.executionContextId)) return;
      const e = recordingEvent(this.sessionId, p.payload);
      if (e) this.recording.push(e.event, e.bytes);
    });
    session.on("Page.frameNavigated", ({ frame }) => {
      this.pageOfFrame.set(frame.id, pageId);
      this.note(pageId, "Page.frameNavigated", { frame: { id: frame.id, parentId: frame.parentId, loaderId: frame.loaderId, url: frame.url + (frame.urlFragment ?? ""), name: frame.name, mimeType: frame.mimeType } }, { frameId: frame.id, loaderId: frame.loaderId });
    });
    session.on("Page.navigatedWithinDocument", (p) => this.note(pageId, "Page.navigatedWithinDocument", { frameId: p.frameId, url: p.url, navigationType: p.navigationType }, { frameId: p.frameId }));
    session.on("Page.frameDetached", ({ frameId }) => this.pageOfFrame.delete(frameId));
    session.on("Runtime.consoleAPICalled", (p) => {
      if (world(p.executionContextId)) return;
      const args = p.args.map((a) => ({ type: a.type, ...(a.subtype ? { subtype: a.subtype } : {}), ...(a.value !== undefined ? { value: a.value as unknown } : {}), ...(a.description !== undefined ? { description: a.description } : {}) }));
      const top = p.stackTrace?.callFrames[0];
      this.note(pageId, "Runtime.consoleAPICalled", { type: p.type, args, timestamp: p.timestamp, executionContextId: p.executionContextId, ...(top ? { url: top.url, lineNumber: top.lineNumber, columnNumber: top.columnNumber } : {}) });
    });
    session.on("Runtime.exceptionThrown", ({ timestamp, exceptionDetails: d }) => {
      if (world(d.executionContextId)) return;
      this.note(pageId, "Runtime.exceptionThrown", { timestamp, exceptionDetails: { text: d.text, url: d.url, lineNumber: d.lineNumber, columnNumber: d.columnNumber, exception: { description: d.exception?.description } } });
    });
    session.on("Network.loadingFailed", (p) => this.note(pageId, "Network.loadingFailed", { requestId: p.requestId, type: p.type, errorText: p.errorText, canceled: p.canceled, blockedReason: p.blockedReason }));
    session.on("Network.responseReceived", (p) => {
      if (p.response.status < 400) return;
      const { url, status, statusText, mimeType } = p.response;
      this.note(pageId, "Network.responseReceived", { requestId: p.requestId, type: p.type, frameId: p.frameId, loaderId: p.loaderId, response: { url, status, statusText, mimeType } }, { frameId: p.frameId, loaderId: p.loaderId });
    });
  }
}
