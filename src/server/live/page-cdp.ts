/**
 * The live view's CDP connection to one tab, a page-level WebSocket whose every command passes the tenant filter of
 * an isolated server (cdp/filter.ts), so the live view reaches nothing the tenant's connectUrl could not. The egress
 * proxy applies to what the tab loads.
 */
import { WebSocket } from "ws";
import { unixWsEndpoint } from "../../util/devtools-socket.js";
import { MAX_CDP_MESSAGE } from "../relay.js";
import type { ClientVerdict, TenantCdpFilter } from "../cdp/filter.js";
import { LIVE_LIMITS } from "./messages.js";
import type { LiveTabLink } from "./source.js";

type Params = Record<string, unknown>;
type EventListener = (method: string, params: Params) => void;

export interface PageCdpOptions {
  socketPath: string;
  targetId: string;
  /** The tenant filter (isolated servers); none: commands go as they are. */
  filter?: TenantCdpFilter | undefined;
  onEvent: EventListener;
  /** The tab's socket closed (the tab closed, Chrome ended, or close() was called). */
  onClose: () => void;
}

export class PageCdp implements LiveTabLink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Params) => void; reject: (e: Error) => void }>();
  private closed = false;
  /** The last command's way to Chrome (each waits for the one before it). */
  private chain: Promise<void> = Promise.resolve();
  /** Settles once every command sent so far was answered (or failed). */
  private answered: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: PageCdpOptions,
  ) {
    ws.on("message", (raw, isBinary) => this.onMessage(raw as Buffer, isBinary));
    ws.on("close", () => this.end());
    ws.on("error", () => this.end());
  }

  /** Opens the tab's socket; rejects when Chrome refuses it (no such tab) or does not answer. */
  static open(options: PageCdpOptions): Promise<PageCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(unixWsEndpoint(options.socketPath, `/devtools/page/${encodeURIComponent(options.targetId)}`), {
        perMessageDeflate: false,
        maxPayload: MAX_CDP_MESSAGE,
        handshakeTimeout: 10_000,
        followRedirects: false,
      });
      ws.once("error", () => reject(new Error("the session's browser did not answer")));
      ws.once("unexpected-response", (_req, res) => {
        res.resume();
        ws.terminate();
        reject(new Error(res.statusCode === 404 ? "no such tab" : `the session's browser refused the tab (HTTP ${res.statusCode ?? "?"})`));
      });
      ws.once("open", () => resolve(new PageCdp(ws, options)));
    });
  }

  get targetId(): string {
    return this.options.targetId;
  }

  /** Commands sent and not yet answered. */
  get busy(): number {
    return this.pending.size;
  }

  /**
   * Sends a command (through the tenant filter when there is one); resolves with its result. Commands
   * reach Chrome in the order they were sent (a verdict the filter gives later holds the ones after it).
   */
  send(method: string, params: Params = {}): Promise<Params> {
    if (this.closed) return Promise.reject(new Error("the tab's connection is closed"));
    const id = this.nextId++;
    const answer = new Promise<Params>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const sent = this.chain.then(async () => {
      const text = JSON.stringify({ id, method, params });
      let verdict: ClientVerdict = this.options.filter ? this.options.filter.fromClient(Buffer.from(text), false) : { forward: text };
      while ("later" in verdict) verdict = await verdict.later;
      if ("reply" in verdict) throw new Error(refusalMessage(verdict.reply));
      if (this.closed) throw new Error("the tab's connection is closed");
      this.ws.send(verdict.forward);
    });
    this.chain = sent.catch(() => {});
    this.answered = Promise.allSettled([this.answered, answer]);
    sent.catch((e: unknown) => {
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.reject(e instanceof Error ? e : new Error(String(e)));
    });
    return answer;
  }

  /** Resolves once every command sent before was answered by Chrome (or failed). */
  async settled(): Promise<void> {
    await this.answered;
  }

  /** Sends a command whose answer nobody waits for; dropped when too many are in flight. */
  fire(method: string, params: Params = {}): void {
    if (this.pending.size >= LIVE_LIMITS.maxPendingCommands) return;
    this.send(method, params).catch(() => {});
  }

  close(): void {
    this.ws.terminate();
    this.end();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary) return;
    this.options.filter?.fromBrowser(data, false);
    let m: { id?: number; method?: string; params?: Params; result?: Params; error?: { message?: string } };
    try {
      m = JSON.parse(data.toString("utf8")) as typeof m;
    } catch {
      return;
    }
    if (typeof m.id === "number") {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(String(m.error.message ?? "CDP error").slice(0, 300)));
      else p?.resolve(m.result ?? {});
    } else if (typeof m.method === "string") {
      this.options.onEvent(m.method, m.params ?? {});
    }
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error("the tab's connection closed"));
    this.pending.clear();
    this.options.onClose();
  }
}

/** The message of a refusal the filter answered with. */
function refusalMessage(reply: string): string {
  try {
    return String((JSON.parse(reply) as { error?: { message?: string } }).error?.message ?? "refused by svc");
  } catch {
    return "refused by svc";
  }
}
