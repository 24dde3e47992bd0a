/**
 * One live view viewer: its WebSocket on one side, the session's selected tab on the other. Chrome's screencast frame
 * is acked only once the viewer acked the previous one, so a slow viewer slows capture instead of queueing (the
 * newest frame waits in one slot). A viewer that acks without reading is bounded too (LIVE_LIMITS: buffered bytes,
 * stuck time). The view follows the source's preferred tab.
 */
import type { ServerOptions, WebSocket } from "ws";
import { isServiceError } from "../../index.js";
import { checkUrlText } from "../../util/url-policy.js";
import type { LiveSource, LiveTabLink } from "./source.js";
import { INPUT_TYPES, LIVE_LIMITS, type KeyMessage, type LiveTab, type MouseMessage, parseViewerMessage, type ServerMessage, type ViewerMessage } from "./messages.js";

export interface LiveViewerOptions {
  socket: WebSocket;
  /** The session's browser: its tabs, and a connection to one (live/source.ts). */
  source: LiveSource;
  interactive: boolean;
  /** The tab asked for in the URL (`?tab=`), if any. */
  tab: string | undefined;
  /** The person pressed Continue on question `id` (an interactive viewer only); none: questions are not asked here. */
  answer?: (id: string, reply: string | undefined) => void;
  log: (line: string) => void;
}

/**
 * The options of a live view's WebSocketServer (svc serve's and a session host's). ws's maxPayload closes a
 * larger message with 1009 and no reason, so it is set past LIVE_LIMITS.maxMessageBytes and the viewer
 * refuses a message over that itself, with 1008 and a reason like any bad message.
 */
export const LIVE_SOCKET_OPTIONS: ServerOptions = { noServer: true, perMessageDeflate: false, maxPayload: LIVE_LIMITS.maxWireMessageBytes };

interface Frame {
  data: string;
  sessionId: number;
  metadata: { deviceWidth?: number; deviceHeight?: number; offsetTop?: number; pageScaleFactor?: number };
}

/** A failure as the viewer shows it: a library error with its code first, as every door words it. */
function errorLine(e: unknown): string {
  if (isServiceError(e)) return `${e.code}: ${e.message}`;
  return String(e instanceof Error ? e.message : e);
}

const MOUSE_TYPES = { move: "mouseMoved", down: "mousePressed", up: "mouseReleased", wheel: "mouseWheel" } as const;

export class LiveViewer {
  private page: LiveTabLink | undefined;
  /** The source's preferred tab when last seen (the view follows it when it changes). */
  private preferred: string | undefined;
  /** The tab being attached to, until it is. */
  private selecting: string | undefined;
  private tabs: LiveTab[] = [];
  private tabsSent = "";
  private size = { width: 1280, height: 720 };
  /** A frame was sent and the viewer has not acknowledged it yet. */
  private viewerBusy = false;
  /** The newest frame not sent yet (one slot: a newer one replaces it). */
  private held: Frame | undefined;
  /** Chrome's frames not acknowledged yet (their screencast session ids). */
  private owed: number[] = [];
  /** Messages given to the socket whose bytes have not all been written out of this process yet. */
  private unwritten = 0;
  /** When the socket last took a message, or when it began to owe one: the stuck clock. */
  private flowedAt = Date.now();
  private readonly timer: NodeJS.Timeout;
  private tokens: number = LIVE_LIMITS.maxMessagesPerSecond;
  private refilled = Date.now();
  private closed = false;
  /** Frames sent to the viewer (for tests and measurements). */
  framesSent = 0;

  constructor(private readonly o: LiveViewerOptions) {
    this.timer = setInterval(() => this.tick(), LIVE_LIMITS.tabsRefreshMs);
    this.timer.unref();
    o.socket.on("message", (raw, isBinary) => this.onMessage(raw as Buffer, isBinary));
    o.socket.on("close", () => this.close());
    o.socket.on("error", () => this.close());
  }

  /** Sends the greeting, reads the tabs and attaches to the asked one (or the first). */
  async start(): Promise<void> {
    this.send({ type: "hello", interactive: this.o.interactive, limits: { maxMessagesPerSecond: LIVE_LIMITS.maxMessagesPerSecond } });
    this.preferred = this.o.source.preferred?.();
    await this.refreshTabs();
    const first = this.tabs.find((t) => t.id === this.o.tab) ?? this.tabs.find((t) => t.id === this.preferred) ?? this.tabs[0];
    if (first) await this.select(first.id);
  }

  /** The session ended: tells the viewer, then closes. */
  ended(status: string): void {
    this.send({ type: "ended", status });
    this.o.socket.close(1000, "session ended");
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.page?.close();
    this.page = undefined;
  }

  /** Sends the viewer a message of the session's (a question, its end). */
  notify(m: ServerMessage): void {
    this.send(m);
  }

  private send(m: ServerMessage): void {
    this.write(JSON.stringify(m));
  }

  /** Sends `data`; once it was written out the stuck clock restarts and a held frame may go. */
  private write(data: string | Buffer): void {
    const socket = this.o.socket;
    if (socket.readyState !== socket.OPEN) return;
    if (this.unwritten++ === 0) this.flowedAt = Date.now();
    socket.send(data, { binary: typeof data !== "string" }, () => {
      this.unwritten--;
      this.flowedAt = Date.now();
      this.pump();
    });
  }

  private tick(): void {
    if (this.unwritten > 0 && Date.now() - this.flowedAt > LIVE_LIMITS.stuckViewerMs) return this.stuck();
    void this.refreshTabs();
  }

  /** The viewer reads nothing: closed (its socket goes once the close is read, or at ws's close timeout). */
  private stuck(): void {
    const reason = `viewer: read nothing for ${LIVE_LIMITS.stuckViewerMs / 1000} s`;
    this.o.log(`live view: closed a viewer that ${reason.slice(8)} (${this.o.socket.bufferedAmount} bytes waiting)`);
    this.o.socket.close(1008, reason);
    this.close();
  }

  private onMessage(raw: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    const now = Date.now();
    this.tokens = Math.min(LIVE_LIMITS.maxMessagesPerSecond, this.tokens + ((now - this.refilled) / 1000) * LIVE_LIMITS.maxMessagesPerSecond);
    this.refilled = now;
    if (--this.tokens < 0) return this.refuse(`message: more than ${LIVE_LIMITS.maxMessagesPerSecond} messages per second`);
    if (isBinary) return this.refuse("message: binary messages are not accepted");
    if (raw.length > LIVE_LIMITS.maxMessageBytes) return this.refuse(`message: ${raw.length} bytes, more than the ${LIVE_LIMITS.maxMessageBytes} a message may have`);
    const parsed = parseViewerMessage(raw);
    if (!parsed.ok) return this.refuse(parsed.reason);
    const m = parsed.message;
    if (INPUT_TYPES.has(m.type) && !this.o.interactive) return; // view-only: input is ignored
    this.handle(m).catch((e: unknown) => this.send({ type: "error", message: errorLine(e).slice(0, 300) }));
  }

  private refuse(reason: string): void {
    this.send({ type: "error", message: reason });
    this.o.socket.close(1008, reason.slice(0, 120));
    this.close();
  }

  private async handle(m: ViewerMessage): Promise<void> {
    const page = this.page;
    switch (m.type) {
      case "ack":
        return this.viewerAck();
      case "size": {
        const width = clamp(m.width);
        const height = clamp(m.height);
        if (width === this.size.width && height === this.size.height) return;
        this.size = { width, height };
        if (page) await this.startScreencast(page);
        return;
      }
      case "ping":
        await page?.settled();
        return this.send({ type: "pong", n: m.n });
      case "answer":
        if (!this.o.answer) throw new Error("answer: no question is waiting here");
        return this.o.answer(m.id, m.reply);
      case "tab":
        if (!this.tabs.some((t) => t.id === m.id)) throw new Error("tab: no such tab in this session");
        return this.select(m.id);
      default:
        // A URL the policy refuses is refused as such, tab or not: the answer never depends on timing.
        if (m.type === "navigate") checkUrlText(addressOf(m.url), "web");
        if (!page) throw new Error("no tab to send this to");
        if (m.type === "mouse") return page.fire("Input.dispatchMouseEvent", mouseParams(m));
        if (m.type === "key") return page.fire("Input.dispatchKeyEvent", keyParams(m));
        if (m.type === "navigate") return this.navigate(page, m.url);
        return this.history(page, m.action);
    }
  }

  /** The address box: whoever holds the view's URL, not only the session's owner, may type here (the "web" policy). */
  private async navigate(page: LiveTabLink, raw: string): Promise<void> {
    const url = addressOf(raw);
    checkUrlText(url, "web");
    const r = await page.send("Page.navigate", { url });
    if (typeof r.errorText === "string" && r.errorText) throw new Error(`navigation to ${url.slice(0, 200)} failed: ${r.errorText}`);
  }

  private async history(page: LiveTabLink, action: "back" | "forward" | "reload"): Promise<void> {
    if (action === "reload") return void (await page.send("Page.reload"));
    const h = (await page.send("Page.getNavigationHistory")) as { currentIndex?: number; entries?: { id: number }[] };
    const entry = h.entries?.[(h.currentIndex ?? 0) + (action === "back" ? -1 : 1)];
    if (entry) await page.send("Page.navigateToHistoryEntry", { entryId: entry.id });
  }

  /** Attaches to tab `id` (leaving the current one) and starts its screencast. */
  private async select(id: string): Promise<void> {
    if (this.page?.targetId === id || this.selecting === id || this.closed) return;
    this.selecting = id;
    const old = this.page;
    this.page = undefined;
    old?.close();
    this.held = undefined;
    this.owed = [];
    const page: LiveTabLink = await this.o.source.open(id, {
      onEvent: (method, params) => this.onEvent(page, method, params),
      onClose: () => {
        if (this.page !== page) return;
        this.page = undefined;
        void this.refreshTabs();
      },
    }).catch((e: unknown) => {
      if (this.selecting === id) this.selecting = undefined;
      throw e;
    });
    // Another selection (or the end) came while this tab was opening: the latest one wins.
    if (this.closed || this.selecting !== id) return page.close();
    this.selecting = undefined;
    this.page = page;
    this.sendTabs(true);
    await page.send("Page.enable");
    await page.send("Page.bringToFront").catch(() => {});
    await this.startScreencast(page);
  }

  private async startScreencast(page: LiveTabLink): Promise<void> {
    await page.send("Page.stopScreencast").catch(() => {});
    this.owed = [];
    this.held = undefined;
    await page.send("Page.startScreencast", { format: "jpeg", quality: LIVE_LIMITS.jpegQuality, maxWidth: this.size.width, maxHeight: this.size.height, everyNthFrame: 1 });
  }

  private onEvent(page: LiveTabLink, method: string, params: Record<string, unknown>): void {
    if (page !== this.page) return;
    if (method === "Page.screencastFrame") return this.onFrame(params as unknown as Frame);
    const mainFrame = method === "Page.frameNavigated" && !(params.frame as { parentId?: string } | undefined)?.parentId;
    if (mainFrame || method === "Page.loadEventFired" || method === "Page.navigatedWithinDocument") void this.refreshTabs();
  }

  private onFrame(frame: Frame): void {
    this.owed.push(frame.sessionId);
    if (this.viewerBusy || this.backedUp()) {
      this.held = frame; // an older held frame is dropped
      return;
    }
    this.sendFrame(frame);
  }

  private backedUp(): boolean {
    return this.o.socket.bufferedAmount > LIVE_LIMITS.maxBufferedBytes;
  }

  private sendFrame(frame: Frame): void {
    const socket = this.o.socket;
    if (socket.readyState !== socket.OPEN) return;
    const m = frame.metadata;
    this.send({ type: "frame", width: m.deviceWidth ?? 0, height: m.deviceHeight ?? 0, offsetTop: m.offsetTop ?? 0, pageScaleFactor: m.pageScaleFactor ?? 1 });
    this.write(Buffer.from(frame.data, "base64"));
    this.viewerBusy = true;
    this.framesSent++;
  }

  /** The viewer painted its frame: the held one goes next, and Chrome may capture again. */
  private viewerAck(): void {
    if (!this.viewerBusy) return;
    this.viewerBusy = false;
    this.pump();
  }

  /** When the viewer is free and its socket not backed up: the held frame goes, and Chrome may capture again. */
  private pump(): void {
    if (this.closed || this.viewerBusy || this.backedUp()) return;
    const held = this.held;
    this.held = undefined;
    if (held) this.sendFrame(held);
    const page = this.page;
    for (const sessionId of this.owed.splice(0)) page?.fire("Page.screencastFrameAck", { sessionId });
  }

  private async refreshTabs(): Promise<void> {
    if (this.closed) return;
    const tabs = await this.o.source.tabs();
    if (this.closed || !tabs) return;
    this.tabs = tabs;
    this.sendTabs(false);
    // The session's own commands moved to another tab (`svc tabs select`, a tab the page opened): the view follows.
    const preferred = this.o.source.preferred?.();
    if (preferred !== this.preferred) {
      this.preferred = preferred;
      if (preferred !== undefined && tabs.some((t) => t.id === preferred)) return void (await this.select(preferred).catch(() => {}));
    }
    if (!this.page && !this.selecting && this.tabs[0]) await this.select(this.tabs[0].id).catch(() => {});
  }

  private sendTabs(force: boolean): void {
    const m: ServerMessage = { type: "tabs", tabs: this.tabs, selected: this.page?.targetId };
    const text = JSON.stringify(m);
    if (!force && text === this.tabsSent) return;
    this.tabsSent = text;
    this.send(m);
  }
}

function clamp(side: number): number {
  return Math.max(LIVE_LIMITS.minFrameSide, Math.min(LIVE_LIMITS.maxFrameSide, Math.round(side)));
}

function mouseParams(m: MouseMessage): Record<string, unknown> {
  const wheel = m.action === "wheel";
  return {
    type: MOUSE_TYPES[m.action],
    x: m.x,
    y: m.y,
    button: wheel ? "none" : (m.button ?? "none"),
    clickCount: m.clickCount ?? (m.action === "down" || m.action === "up" ? 1 : 0),
    modifiers: m.modifiers ?? 0,
    ...(wheel ? { deltaX: m.deltaX ?? 0, deltaY: m.deltaY ?? 0 } : {}),
  };
}

function keyParams(m: KeyMessage): Record<string, unknown> {
  const type = m.action === "up" ? "keyUp" : m.text ? "keyDown" : "rawKeyDown";
  return {
    type,
    key: m.key,
    code: m.code ?? "",
    windowsVirtualKeyCode: m.keyCode ?? 0,
    nativeVirtualKeyCode: m.keyCode ?? 0,
    modifiers: m.modifiers ?? 0,
    ...(m.text && m.action === "down" ? { text: m.text, unmodifiedText: m.text } : {}),
  };
}

/** What the address box means by what was typed: a URL, or a host (`example.com`) for https. */
function addressOf(raw: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(raw.trim()) ? raw.trim() : `https://${raw.trim()}`;
}
