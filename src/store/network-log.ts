/**
 * The requests a CLI session's pages made (`sessions/<id>.network`, 0600, atomic), written in batches by the host
 * (commands/host/network.ts) and bounded by NETWORK_LOG_LIMITS. `--clear` writes `<file>.cleared` instead of
 * rewriting the host's file, and reader and host drop what came before. Every string is masked with the session's
 * secrets on write and on read.
 */
import { ServiceStateError } from "../errors.js";
import { clearedMark, ensureDir, newestWithin, readIfExists, resolveStateDir, writeClearedMark, writeStateFile } from "./files.js";
import { sessionMasker } from "./secrets.js";
import { networkLogPath, sessionsDir } from "./session-records.js";

/** The bounds of the network log (and of one request in it). */
export const NETWORK_LOG_LIMITS = { entries: 1000, bytes: 5_000_000, urlChars: 4000, headers: 100, headerChars: 4000, postDataChars: 16_000 } as const;

/** Chrome's ResourceTiming (milliseconds after `requestTime`, seconds on Chrome's monotonic clock; -1: did not happen). */
export interface ResourceTiming {
  requestTime: number;
  proxyStart: number;
  proxyEnd: number;
  dnsStart: number;
  dnsEnd: number;
  connectStart: number;
  connectEnd: number;
  sslStart: number;
  sslEnd: number;
  sendStart: number;
  sendEnd: number;
  receiveHeadersEnd: number;
  [other: string]: number;
}

/** One request (one hop of a redirect chain: each hop is an entry of its own). */
export interface NetworkEntry {
  /** Short and stable for the session: `r12`. */
  id: string;
  /** When the recorder saw it start (epoch ms): what `--clear` compares with. */
  received: number;
  /** The page's DevTools target id (its tab number comes from store/tabs.ts). */
  target: string;
  /** Chrome's request id (the hops of a redirect share it). */
  requestId: string;
  frameId?: string;
  /** The page (a main-frame document load) the request belongs to, for a HAR's pageref. */
  page?: string;
  method: string;
  url: string;
  /** Chrome's resource type: Document, Stylesheet, Image, Script, XHR, Fetch, … Other. */
  type: string;
  state: "pending" | "finished" | "failed";
  /** When it started (ISO, the wall clock). */
  startedAt: string;
  /** When it started, on Chrome's monotonic clock (seconds). */
  start: number;
  /** When it finished or failed (or was redirected), same clock. */
  end?: number;
  requestHeaders: Record<string, string>;
  postData?: string;
  /** The request body was longer than NETWORK_LOG_LIMITS.postDataChars (or not all of it was given). */
  postDataClipped?: boolean;
  status?: number;
  statusText?: string;
  /** `http/1.1`, `h2`, `h3`, `data`… as Chrome says. */
  protocol?: string;
  responseHeaders?: Record<string, string>;
  mimeType?: string;
  remoteAddress?: string;
  remotePort?: number;
  connectionId?: number;
  fromCache?: "disk" | "service-worker" | "prefetch";
  timing?: ResourceTiming;
  /** Bytes received for the request in all (headers and body, as sent). */
  encodedDataLength?: number;
  /** Bytes of the body as sent (compressed). */
  bodyBytes?: number;
  /** Bytes of the body once decoded. */
  size?: number;
  /** Why it failed (Chrome's errorText, e.g. net::ERR_CONNECTION_REFUSED). */
  failure?: string;
  canceled?: boolean;
  blockedReason?: string;
  /** The id of the next hop, when this answer was a redirect. */
  redirectedTo?: string;
}

/** How long a request took (ms), when it ended. */
export function entryDuration(e: NetworkEntry): number | undefined {
  return e.end === undefined ? undefined : Math.max(0, Math.round((e.end - e.start) * 1000));
}

export { NETWORK_REQUEST_ID } from "../util/network-id.js";

/** Headers one per line, indented; a value Chrome joined from repeated headers (newline-separated) is one line each. */
export const headerLines = (h: Record<string, string> | undefined): string[] => Object.entries(h ?? {}).flatMap(([k, v]) => v.split("\n").map((x) => `  ${k}: ${x}`));

/** A request's status as a listing shows it: the code, `failed` or `pending`. */
export const statusWord = (e: NetworkEntry): string => (e.state === "failed" ? "failed" : e.status !== undefined ? String(e.status) : "pending");

/** Its duration as a listing shows it: `35 ms`, or `-` while it runs. */
export const durationWord = (e: NetworkEntry): string => {
  const d = entryDuration(e);
  return d === undefined ? "-" : `${d} ms`;
};

/** The newest entries within the bounds (entries count and JSON bytes), oldest first. */
export function boundedNetworkLog(entries: readonly NetworkEntry[]): NetworkEntry[] {
  return newestWithin(entries, NETWORK_LOG_LIMITS);
}

/** When the network log was last cleared (epoch ms; 0: never). */
export function networkClearedAt(id: string, root: string = resolveStateDir()): number {
  return clearedMark(networkLogPath(root, id));
}

export interface NetworkLogStore {
  /** Entries after the last clear, masked with the session's secrets now. */
  read(): NetworkEntry[];
  /** Replaces the file with these entries (bounded, masked; the cleared ones dropped): the host's batch. */
  write(entries: readonly NetworkEntry[]): void;
  /** Empties the log: requests received until now are dropped by readers and by the host's next batch. */
  clear(): void;
}

export function sessionNetworkLog(id: string, root: string = resolveStateDir()): NetworkLogStore {
  const path = networkLogPath(root, id);
  return {
    read() {
      const text = readIfExists(path);
      if (text === undefined) return [];
      let list: unknown;
      try {
        list = (JSON.parse(text) as { entries?: unknown }).entries;
      } catch (e) {
        throw new ServiceStateError(`corrupt network log ${path}: not JSON`, { cause: e, hint: "delete the file" });
      }
      if (!Array.isArray(list)) throw new ServiceStateError(`corrupt network log ${path}: entries: expected an array`, { hint: "delete the file" });
      const since = networkClearedAt(id, root);
      const valid = (e: Partial<NetworkEntry> | null) => !!e && typeof e === "object" && typeof e.received === "number" && e.received > since && typeof e.id === "string" && typeof e.url === "string";
      return sessionMasker(id, root).deep((list as Array<Partial<NetworkEntry> | null>).filter(valid) as NetworkEntry[]);
    },
    write(entries) {
      const since = networkClearedAt(id, root);
      const kept = sessionMasker(id, root).deep(boundedNetworkLog(entries.filter((e) => e.received > since)));
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify({ entries: kept })}\n`, 0o600);
    },
    clear() {
      writeClearedMark(path);
    },
  };
}
