/**
 * The session host's live view (`svc view`): the same page as `svc serve`'s live view, served by this host
 * on 127.0.0.1 (src/server/live/local-view.ts) over a DevTools connection of its own to the session's Chrome
 * (each viewer attaches its own session to the tab it shows, so the keeper's sessions are left alone). Started
 * on the first `svc view` (or the first question an `svc agent --ask-human` asks), on a port chosen then, and
 * kept until the session ends; the view starts on the session's selected tab and follows it.
 */
import { CdpConnection } from "../src/internal.js";
import { type SessionRecord, sessionTabStore } from "../src/base.js";
import type { LiveAnswer, LocalLiveView } from "../src/server/live/index.js";

export class HostView {
  private starting: Promise<LocalLiveView> | undefined;
  private view: LocalLiveView | undefined;
  private connection: CdpConnection | undefined;
  private closed = false;

  constructor(private readonly o: { record: SessionRecord; root: string }) {}

  /** The view's URL once it was started. */
  get url(): string | undefined {
    return this.view?.url;
  }

  get viewers(): number {
    return this.view?.viewers() ?? 0;
  }

  /** Starts the view server (once; later calls get the same one). */
  start(): Promise<LocalLiveView> {
    if (this.closed) return Promise.reject(new Error("the session is ending"));
    this.starting ??= this.open().catch((e: unknown) => {
      this.starting = undefined;
      throw e;
    });
    return this.starting;
  }

  /** Asks the person watching (the view is started if it was not). */
  async ask(message: string, timeoutMs: number, signal: AbortSignal): Promise<LiveAnswer> {
    return (await this.start()).ask(message, timeoutMs, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.view?.close().catch(() => {});
    await this.connection?.close().catch(() => {});
  }

  private async open(): Promise<LocalLiveView> {
    const { id, wsEndpoint } = this.o.record;
    const [{ startLocalLiveView, connectionSource }, connection] = await Promise.all([import("../src/server/live/index.js"), CdpConnection.connect(wsEndpoint)]);
    this.connection = connection;
    const tabs = sessionTabStore(id, this.o.root);
    const preferred = () => {
      try {
        return tabs.load().selected;
      } catch {
        return undefined;
      }
    };
    const view = await startLocalLiveView({ sessionId: id, source: connectionSource(connection, preferred) }).catch(async (e: unknown) => {
      await connection.close().catch(() => {});
      throw e;
    });
    if (this.closed) {
      await view.close();
      await connection.close().catch(() => {});
      throw new Error("the session is ending");
    }
    this.view = view;
    return view;
  }
}
