/**
 * HAR 1.2 of recorded requests (network-recorder.ts), with timings derived from Chrome's ResourceTiming the way
 * DevTools' own HAR export derives them, so the file imports in DevTools and other HAR viewers. Pure: no I/O.
 */
import type { NetworkEntry, ResourceTiming } from "../store/network-log.js";
import type { NetworkPage } from "./network-recorder.js";

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarCookie {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  expires?: string;
  httpOnly?: boolean;
  secure?: boolean;
}

export interface HarTimings {
  blocked: number;
  dns: number;
  connect: number;
  send: number;
  wait: number;
  receive: number;
  ssl: number;
}

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarCookie[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; params?: HarNameValue[] };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarCookie[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _transferSize?: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  serverIPAddress?: string;
  connection?: string;
  comment?: string;
  _resourceType?: string;
}

export interface Har {
  log: {
    version: "1.2";
    creator: { name: string; version: string };
    pages: Array<{ startedDateTime: string; id: string; title: string; pageTimings: { onContentLoad: number; onLoad: number } }>;
    entries: HarEntry[];
    comment?: string;
  };
}

/** A response body to put in a HAR entry's content. */
export interface HarBody {
  text: string;
  base64Encoded: boolean;
}

export interface HarInput {
  entries: readonly NetworkEntry[];
  pages: readonly NetworkPage[];
  creator: { name: string; version: string };
  /** Bodies by entry id (optional). */
  bodies?: ReadonlyMap<string, HarBody>;
  comment?: string;
  /** Chrome's monotonic clock now (seconds): how long an unfinished request has run. */
  now?: number;
}

const pairs = (h: Record<string, string> | undefined): HarNameValue[] =>
  Object.entries(h ?? {}).flatMap(([name, value]) => value.split("\n").map((v) => ({ name, value: v })));

function header(h: Record<string, string> | undefined, name: string): string | undefined {
  const key = Object.keys(h ?? {}).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : h![key];
}

/** `Cookie: a=1; b=2` → its cookies. */
export function requestCookies(h: Record<string, string> | undefined): HarCookie[] {
  const raw = header(h, "cookie");
  if (!raw) return [];
  return raw
    .split(/;\s*/)
    .filter((p) => p.includes("="))
    .map((p) => ({ name: p.slice(0, p.indexOf("=")).trim(), value: p.slice(p.indexOf("=") + 1).trim() }));
}

/** Each `Set-Cookie` line → a cookie with its attributes. */
export function responseCookies(h: Record<string, string> | undefined): HarCookie[] {
  const raw = header(h, "set-cookie");
  if (!raw) return [];
  return raw.split("\n").flatMap((line) => {
    const [first, ...attrs] = line.split(";");
    if (!first?.includes("=")) return [];
    const c: HarCookie = { name: first.slice(0, first.indexOf("=")).trim(), value: first.slice(first.indexOf("=") + 1).trim() };
    for (const a of attrs) {
      const [k, ...v] = a.split("=");
      const key = k!.trim().toLowerCase();
      const value = v.join("=").trim();
      if (key === "path") c.path = value;
      else if (key === "domain") c.domain = value;
      else if (key === "expires" && !Number.isNaN(Date.parse(value))) c.expires = new Date(value).toISOString();
      else if (key === "httponly") c.httpOnly = true;
      else if (key === "secure") c.secure = true;
    }
    return [c];
  });
}

function queryString(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** `h2` → `HTTP/2.0`, `http/1.1` → `HTTP/1.1`; what Chrome did not say stays empty. */
function httpVersion(protocol: string | undefined): string {
  if (!protocol) return "";
  const p = protocol.toLowerCase();
  if (p === "h2") return "HTTP/2.0";
  if (p === "h3" || p.startsWith("h3-")) return "HTTP/3.0";
  if (p.startsWith("http/")) return p.toUpperCase();
  return protocol;
}

/** The smallest of the values that are ≥ 0 (Infinity: none). */
const leastNonNegative = (values: number[]) => values.reduce((m, v) => (v >= 0 && v < m ? v : m), Infinity);
const ms = (v: number) => Math.round(v * 1000) / 1000;

/**
 * HAR timings from Chrome's ResourceTiming (as DevTools' HAR export derives them): each phase runs from the end of
 * the one before, so the phases add up to the request's whole time; `end` in Chrome's seconds.
 */
export function harTimings(e: Pick<NetworkEntry, "start" | "end" | "timing">, now = e.end ?? e.start): HarTimings {
  const t: ResourceTiming | undefined = e.timing;
  const end = e.end ?? now;
  if (!t) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: ms(Math.max(0, (end - e.start) * 1000)) };
  // Queued before Chrome started it.
  let blocked = t.requestTime > e.start ? (t.requestTime - e.start) * 1000 : -1;
  const blockedStart = leastNonNegative([t.dnsStart, t.connectStart, t.sendStart]);
  if (blockedStart !== Infinity) blocked = blocked < 0 ? blockedStart : blocked + blockedStart;
  if (t.proxyEnd !== -1 && t.proxyEnd - t.proxyStart > blocked) blocked = t.proxyEnd - t.proxyStart;
  const start = blockedStart === Infinity ? 0 : blockedStart;
  const dnsEnd = t.dnsEnd >= 0 ? t.dnsEnd : -1;
  const dns = t.dnsEnd >= 0 ? t.dnsEnd - start : -1;
  const sslEnd = t.sslEnd > 0 ? t.sslEnd : -1;
  const ssl = t.sslEnd > 0 ? t.sslEnd - t.sslStart : -1;
  const connectEnd = t.connectEnd >= 0 ? t.connectEnd : -1;
  const connect = t.connectEnd >= 0 ? t.connectEnd - Math.max(dnsEnd, start) : -1;
  const sendStart = t.sendEnd >= 0 ? Math.max(connectEnd, dnsEnd, start) : 0;
  const sendEnd = t.sendEnd >= 0 ? t.sendEnd : 0;
  const send = Math.max(0, sendEnd - sendStart);
  const highest = Math.max(sendEnd, connectEnd, sslEnd, dnsEnd, start, 0);
  const wait = Math.max(0, t.receiveHeadersEnd - highest);
  const receive = Math.max(0, (end - t.requestTime) * 1000 - Math.max(t.receiveHeadersEnd, highest));
  return { blocked: ms(blocked), dns: ms(dns), connect: ms(connect), ssl: ms(ssl), send: ms(send), wait: ms(wait), receive: ms(receive) };
}

/** An entry's total time: the sum of its non-negative phases (ssl is part of connect). */
export function harTime(t: HarTimings): number {
  return ms([t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].reduce((s, v) => s + Math.max(0, v), 0));
}

function entry(e: NetworkEntry, body: HarBody | undefined, pageIds: ReadonlySet<string>, now: number | undefined, redirectURL: string): HarEntry {
  const timings = harTimings(e, now);
  const contentType = header(e.requestHeaders, "content-type") ?? "";
  const failed = e.state === "failed";
  const content: HarEntry["response"]["content"] = { size: e.size ?? 0, mimeType: e.mimeType ?? "x-unknown" };
  if (body) {
    content.text = body.text;
    if (body.base64Encoded) content.encoding = "base64";
  }
  const sent = e.bodyBytes ?? (e.state === "finished" ? 0 : -1);
  const out: HarEntry = {
    ...(e.page && pageIds.has(e.page) ? { pageref: e.page } : {}),
    startedDateTime: e.startedAt,
    time: harTime(timings),
    request: {
      method: e.method,
      url: e.url,
      httpVersion: httpVersion(e.protocol),
      cookies: requestCookies(e.requestHeaders),
      headers: pairs(e.requestHeaders),
      queryString: queryString(e.url),
      ...(e.postData !== undefined ? { postData: { mimeType: contentType, text: e.postData } } : {}),
      headersSize: -1,
      bodySize: e.postData !== undefined ? Buffer.byteLength(e.postData) : 0,
    },
    response: {
      status: e.status ?? 0,
      statusText: e.statusText ?? "",
      httpVersion: httpVersion(e.protocol),
      cookies: responseCookies(e.responseHeaders),
      headers: pairs(e.responseHeaders),
      content,
      redirectURL,
      headersSize: -1,
      bodySize: sent,
      ...(e.encodedDataLength !== undefined ? { _transferSize: e.encodedDataLength } : {}),
      ...(failed ? { _error: e.failure ?? "failed" } : {}),
    },
    cache: {},
    timings,
    ...(e.remoteAddress ? { serverIPAddress: e.remoteAddress } : {}),
    ...(e.connectionId ? { connection: String(e.connectionId) } : {}),
    ...(e.state === "pending" ? { comment: "unfinished when the HAR was written" } : {}),
    _resourceType: e.type.toLowerCase(),
  };
  return out;
}

/** The HAR 1.2 document of these requests and pages. */
export function buildHar(input: HarInput): Har {
  const pageIds = new Set(input.pages.map((p) => p.id));
  const urlById = new Map(input.entries.map((e) => [e.id, e.url]));
  const redirect = (e: NetworkEntry) => (e.redirectedTo ? (urlById.get(e.redirectedTo) ?? header(e.responseHeaders, "location") ?? "") : (header(e.responseHeaders, "location") ?? ""));
  return {
    log: {
      version: "1.2",
      creator: input.creator,
      pages: input.pages.map((p) => ({
        startedDateTime: p.startedAt,
        id: p.id,
        title: p.url,
        pageTimings: { onContentLoad: p.onContentLoad ?? -1, onLoad: p.onLoad ?? -1 },
      })),
      entries: [...input.entries]
        .sort((a, b) => a.start - b.start)
        .map((e) => entry(e, input.bodies?.get(e.id), pageIds, input.now, redirect(e))),
      ...(input.comment ? { comment: input.comment } : {}),
    },
  };
}
