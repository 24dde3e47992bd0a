/**
 * What a live viewer (live/viewer.ts) needs of a session's browser, whoever serves the view: the tabs a person
 * may see and drive, and a connection of its own to one of them. `svc serve` gives it over Chrome's unix socket
 * with a tenant filter (live/socket-source.ts); a CLI session's host over its own DevTools connection
 * (live/connection-source.ts).
 */
import type { LiveTab } from "./messages.js";

export type CdpParams = Record<string, unknown>;

/** A viewer's own connection to one tab: commands in order, the tab's events to `onEvent`. */
export interface LiveTabLink {
  readonly targetId: string;
  /** Sends a command; resolves with its result. */
  send(method: string, params?: CdpParams): Promise<CdpParams>;
  /** Sends a command whose answer nobody waits for; dropped when too many are in flight. */
  fire(method: string, params?: CdpParams): void;
  /** Resolves once every command sent before was answered (or failed). */
  settled(): Promise<void>;
  close(): void;
}

export interface LiveTabHandlers {
  onEvent: (method: string, params: CdpParams) => void;
  /** The link closed (the tab closed, the browser ended, or close() was called). */
  onClose: () => void;
}

export interface LiveSource {
  /** The tabs a viewer may see and drive now (at most 100); undefined when the browser did not answer. */
  tabs(): Promise<LiveTab[] | undefined>;
  /** A connection of the viewer's own to tab `targetId`; rejects when there is no such tab. */
  open(targetId: string, handlers: LiveTabHandlers): Promise<LiveTabLink>;
  /** The tab the session's own commands drive, when the source knows one: the view starts there and follows it when it changes. */
  preferred?(): string | undefined;
}

/** Page targets as the tab strip shows them (bounded). */
export function toLiveTabs(list: readonly { id?: unknown; type?: unknown; title?: unknown; url?: unknown }[], allowed: (id: string) => boolean = () => true): LiveTab[] {
  return list
    .filter((t) => t.type === "page" && typeof t.id === "string" && allowed(t.id))
    .slice(0, 100)
    .map((t) => ({ id: String(t.id), title: String(t.title ?? "").slice(0, 300), url: String(t.url ?? "").slice(0, 2000) }));
}
