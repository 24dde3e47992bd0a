/**
 * The host's live view (`svc view`): `svc serve`'s page on 127.0.0.1 over a DevTools connection of its own (a session
 * per viewer, leaving the keeper's alone), started on first use and kept for the session. `--open` opens a 0600
 * launch file redirecting to the URL, never the URL: argv is readable by every local user. The file goes
 * LAUNCH_FILE_MS later, since when it was read cannot be observed.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CdpConnection } from "../../src/internal.js";
import { type SessionRecord, mkdirp, sessionTabStore, viewLaunchDir } from "../../src/base.js";
import type { LiveAnswer, LocalLiveView } from "../../src/server/live/index.js";

/** How long a launch file stays for the browser to read it. */
const LAUNCH_FILE_MS = 60_000;

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

  /** Starts the view and writes a launch file for it (see above): its path. */
  async launch(): Promise<string> {
    const view = await this.start();
    const dir = viewLaunchDir(this.o.root, this.o.record.id);
    mkdirp(dir, 0o700);
    chmodSync(dir, 0o700);
    const file = join(dir, `open-${randomBytes(12).toString("hex")}.html`);
    writeFileSync(file, launchPage(view.url), { mode: 0o600, flag: "wx" });
    setTimeout(() => rmSync(file, { force: true }), LAUNCH_FILE_MS).unref();
    return file;
  }

  async close(): Promise<void> {
    this.closed = true;
    rmSync(viewLaunchDir(this.o.root, this.o.record.id), { recursive: true, force: true });
    await this.view?.close().catch(() => {});
    await this.connection?.close().catch(() => {});
  }

  private async open(): Promise<LocalLiveView> {
    const { id, wsEndpoint } = this.o.record;
    const [{ startLocalLiveView, connectionSource }, connection] = await Promise.all([import("../../src/server/live/index.js"), CdpConnection.connect(wsEndpoint)]);
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

/** A page that goes on to `url` at once (a meta refresh: no script needed), with a link if it does not. */
function launchPage(url: string): string {
  const href = url.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>svc view</title><a href="${href}">Open the live view</a>\n`;
}
