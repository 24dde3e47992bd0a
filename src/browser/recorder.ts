/**
 * A recorder of what happens in a browser, over its own CDP connection auto-attached to every tab and OOPIF:
 * navigations, console messages and exceptions, failed requests and responses ≥ 400, downloads (a few fields each),
 * and the rrweb recording (recorder-rrweb.ts). A new tab waits until the recorder is set up, so its first document is
 * recorded.
 */
import type { Protocol } from "devtools-protocol";
import { CdpConnection, type CdpSession } from "./cdp/connection.js";
import { type DownloadBudget, DownloadGuard } from "./recorder-downloads.js";
import { installRecorder, isRecorderBinding, RECORDER_WORLD } from "./recorder-rrweb.js";

export interface RecorderSinks {
  event(pageId: number, method: string, params: Record<string, unknown>, ids?: { frameId?: string | undefined; loaderId?: string | undefined }): void;
  /** One rrweb event, as the recorder in the page serialised it (not validated). */
  recording(payload: string): void;
}

export interface RecorderOptions {
  /** Where downloads go, and how many bytes they may take all together; absent: the recorder leaves downloads alone. */
  downloads?: DownloadBudget | undefined;
  /** Whether tabs get the rrweb recorder (default true); without it no `recording` is reported and pages pay nothing for it. */
  record?: boolean | undefined;
}

export interface BrowserRecorder {
  close(): Promise<void>;
}

export async function startRecorder(wsEndpoint: string, sinks: RecorderSinks, options: RecorderOptions = {}): Promise<BrowserRecorder> {
  const connection = await CdpConnection.connect(wsEndpoint);
  try {
    await new Recorder(connection, sinks, options.record ?? true).start(options);
  } catch (e) {
    await connection.close();
    throw e;
  }
  return { close: () => connection.close() };
}

class Recorder {
  private downloads: DownloadGuard | undefined;
  private pages = 0;
  /** `<cdp session>:<context id>` of the recorder's isolated worlds. */
  private readonly recorderWorlds = new Set<string>();
  /** Which tab each frame is in (for download events, which name only the frame). */
  private readonly pageOfFrame = new Map<string, number>();

  constructor(
    private readonly connection: CdpConnection,
    private readonly sinks: RecorderSinks,
    private readonly record: boolean,
  ) {}

  async start(options: RecorderOptions): Promise<void> {
    const root = this.connection.root;
    const note = this.sinks.event.bind(this.sinks);
    if (options.downloads) this.downloads = new DownloadGuard({ root, budget: options.downloads, note: (method, params) => note(-1, method, params) });
    root.on("Target.attachedToTarget", (p) => this.attached(p, undefined));
    root.on("Browser.downloadWillBegin", (p) => note(this.pageOfFrame.get(p.frameId) ?? -1, "Browser.downloadWillBegin", { frameId: p.frameId, guid: p.guid, url: p.url, suggestedFilename: p.suggestedFilename }, { frameId: p.frameId }));
    root.on("Browser.downloadProgress", (p) => {
      if (p.state !== "inProgress") note(-1, "Browser.downloadProgress", { guid: p.guid, state: p.state, receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
    });
    await this.downloads?.start();
    await root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  }

  private attached(p: Protocol.Target.AttachedToTargetEvent, parentPage: number | undefined): void {
    const session = this.connection.session(p.sessionId);
    if (!session) return;
    const resume = () => {
      if (p.waitingForDebugger) session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
    };
    const type = p.targetInfo.type;
    if (type !== "page" && type !== "iframe") return resume();
    const pageId = type === "page" ? this.pages++ : (parentPage ?? -1);
    session.on("Target.attachedToTarget", (child) => this.attached(child, pageId));
    this.listen(session, pageId);
    // A client's connection leaving resets Chrome's download behavior: each new tab sets it again.
    if (type === "page") void this.downloads?.apply().catch(() => {});
    const setup = Promise.all([
      session.send("Page.enable"),
      session.send("Runtime.enable"),
      // The recorder never reads bodies: Chrome keeps none for it (by default it buffers up to 100 MB per page).
      session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
      type === "page" && this.record ? installRecorder(session) : undefined,
      session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ]);
    // Whatever failed (a tab closing meanwhile), the target must not stay paused.
    void setup.catch(() => {}).finally(resume);
  }

  private listen(session: CdpSession, pageId: number): void {
    const note = this.sinks.event.bind(this.sinks);
    const key = (contextId: number) => `${session.sessionId}:${contextId}`;
    const inRecorderWorld = (contextId: number | undefined) => contextId !== undefined && this.recorderWorlds.has(key(contextId));
    session.on("Runtime.executionContextCreated", ({ context }) => {
      if (context.name === RECORDER_WORLD) this.recorderWorlds.add(key(context.id));
    });
    session.on("Runtime.executionContextDestroyed", ({ executionContextId }) => this.recorderWorlds.delete(key(executionContextId)));
    session.on("Runtime.executionContextsCleared", () => {
      for (const k of this.recorderWorlds) if (k.startsWith(`${session.sessionId}:`)) this.recorderWorlds.delete(k);
    });
    session.on("Runtime.bindingCalled", (p) => {
      if (isRecorderBinding(p.name) && inRecorderWorld(p.executionContextId)) this.sinks.recording(p.payload);
    });
    session.on("Page.frameNavigated", ({ frame }) => {
      this.pageOfFrame.set(frame.id, pageId);
      note(pageId, "Page.frameNavigated", { frame: { id: frame.id, parentId: frame.parentId, loaderId: frame.loaderId, url: frame.url + (frame.urlFragment ?? ""), name: frame.name, mimeType: frame.mimeType } }, { frameId: frame.id, loaderId: frame.loaderId });
    });
    session.on("Page.navigatedWithinDocument", (p) => note(pageId, "Page.navigatedWithinDocument", { frameId: p.frameId, url: p.url, navigationType: p.navigationType }, { frameId: p.frameId }));
    session.on("Page.frameDetached", ({ frameId }) => this.pageOfFrame.delete(frameId));
    session.on("Runtime.consoleAPICalled", (p) => {
      if (inRecorderWorld(p.executionContextId)) return;
      const args = p.args.map((a) => ({ type: a.type, ...(a.subtype ? { subtype: a.subtype } : {}), ...(a.value !== undefined ? { value: a.value as unknown } : {}), ...(a.description !== undefined ? { description: a.description } : {}) }));
      const top = p.stackTrace?.callFrames[0];
      note(pageId, "Runtime.consoleAPICalled", { type: p.type, args, timestamp: p.timestamp, executionContextId: p.executionContextId, ...(top ? { url: top.url, lineNumber: top.lineNumber, columnNumber: top.columnNumber } : {}) });
    });
    session.on("Runtime.exceptionThrown", ({ timestamp, exceptionDetails: d }) => {
      if (inRecorderWorld(d.executionContextId)) return;
      note(pageId, "Runtime.exceptionThrown", { timestamp, exceptionDetails: { text: d.text, url: d.url, lineNumber: d.lineNumber, columnNumber: d.columnNumber, exception: { description: d.exception?.description } } });
    });
    session.on("Network.loadingFailed", (p) => note(pageId, "Network.loadingFailed", { requestId: p.requestId, type: p.type, errorText: p.errorText, canceled: p.canceled, blockedReason: p.blockedReason }));
    session.on("Network.responseReceived", (p) => {
      if (p.response.status < 400) return;
      const { url, status, statusText, mimeType } = p.response;
      note(pageId, "Network.responseReceived", { requestId: p.requestId, type: p.type, frameId: p.frameId, loaderId: p.loaderId, response: { url, status, statusText, mimeType } }, { frameId: p.frameId, loaderId: p.loaderId });
    });
  }
}
