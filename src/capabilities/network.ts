/**
 * The requests the pages made, as the door recorded them (the session host's network log on the CLI, the MCP
 * server's recorder): the list, and one request with its headers, timing and, when asked, its body.
 */
import { z } from "zod";
import { NETWORK_REQUEST_ID } from "../util/network-id.js";
import { type Capability, type CapabilityContext, capability, readOnly, type Report } from "./declare.js";
import type { NetworkEntry } from "../internal.js";

/** The most requests one listing's text shows (the newest), and the most body characters a text shows: a model's context is the budget. */
export const NETWORK_MAX_LINES = 200;
export const NETWORK_MAX_BODY_CHARS = 50_000;

/** What a listing's JSON shows of a request (its headers and timing are the single request's). */
function row(e: NetworkEntry, tab: number | null, duration: number | undefined) {
  return {
    id: e.id,
    method: e.method,
    status: e.status ?? null,
    state: e.state,
    type: e.type,
    url: e.url,
    duration: duration ?? null,
    startedAt: e.startedAt,
    ...(e.mimeType ? { mimeType: e.mimeType } : {}),
    ...(e.size !== undefined ? { size: e.size } : {}),
    ...(e.encodedDataLength !== undefined ? { transferred: e.encodedDataLength } : {}),
    ...(e.failure ? { failure: e.failure } : {}),
    ...(e.redirectedTo ? { redirectedTo: e.redirectedTo } : {}),
    tab,
    target: e.target,
  };
}

async function listRequests(ctx: CapabilityContext, i: { filter?: string | undefined; all?: boolean | undefined; clear?: boolean | undefined }): Promise<Report> {
  const { durationWord, entryDuration, statusWord } = await import("../internal.js");
  const log = await ctx.network();
  const current = i.all ? undefined : (await ctx.page()).targetId;
  const needle = i.filter?.toLowerCase();
  const shown = log.entries.filter((e) => (current === undefined || e.target === current) && (needle === undefined || e.url.toLowerCase().includes(needle)));
  if (i.clear) log.clear();
  const rows = shown.map((e) => row(e, log.tabOf(e.target) ?? null, entryDuration(e)));
  const listed = shown.slice(-NETWORK_MAX_LINES);
  const lines = [
    ...(shown.length > listed.length ? [`${shown.length - listed.length} older requests not shown`] : []),
    ...ctx.columns(listed.map((e) => [e.id, e.method, statusWord(e), e.type, e.url, durationWord(e), e.failure ?? ""])).map((l) => ctx.svc.secrets.text(l)),
  ];
  if (lines.length === 0) lines.push(`no requests${current === undefined ? "" : " in the current tab"}${needle === undefined ? "" : ` whose URL contains ${JSON.stringify(i.filter)}`}`);
  if (i.clear) lines.push("cleared");
  return { kind: "report", text: lines.join("\n"), data: { requests: rows, ...(i.clear ? { cleared: true } : {}) } };
}

const bytes = (n: number | undefined) => (n === undefined ? "-" : n < 10_000 ? `${n} B` : n < 10_000_000 ? `${Math.round(n / 1000)} kB` : `${Math.round(n / 1_000_000)} MB`);

async function showRequest(ctx: CapabilityContext, i: { id: string; body?: boolean | undefined }): Promise<Report> {
  const { durationWord, entryDuration, harTimings, headerLines, statusWord } = await import("../internal.js");
  const log = await ctx.network();
  const e = log.entry(i.id);
  const body = i.body ? await log.body(i.id) : undefined;
  const timings = harTimings(e);
  const tab = log.tabOf(e.target) ?? null;
  const detail = { ...row(e, tab, entryDuration(e)), requestHeaders: e.requestHeaders, ...(e.responseHeaders ? { responseHeaders: e.responseHeaders } : {}), ...(e.postData !== undefined ? { postData: e.postData } : {}), ...(e.remoteAddress ? { remoteAddress: e.remoteAddress, remotePort: e.remotePort ?? null } : {}), ...(e.protocol ? { protocol: e.protocol } : {}), ...(e.fromCache ? { fromCache: e.fromCache } : {}), timings, ...(e.timing ? { timing: e.timing } : {}) };
  const phase = (name: string, v: number) => (v < 0 ? [] : [`${name} ${Math.round(v * 10) / 10} ms`]);
  const lines = [
    `${e.id} ${e.method} ${e.url}`,
    `status: ${statusWord(e)}${e.statusText ? ` ${e.statusText}` : ""}${e.protocol ? ` (${e.protocol})` : ""}   type: ${e.type}${e.mimeType ? `   mime: ${e.mimeType}` : ""}   tab: ${tab ?? "-"}`,
    `started: ${e.startedAt}   duration: ${durationWord(e)}   size: ${bytes(e.size)}   transferred: ${bytes(e.encodedDataLength)}${e.fromCache ? `   from ${e.fromCache} cache` : ""}${e.remoteAddress ? `   remote: ${e.remoteAddress}${e.remotePort ? `:${e.remotePort}` : ""}` : ""}`,
    ...(e.failure ? [`failure: ${e.failure}${e.canceled ? " (canceled)" : ""}${e.blockedReason ? ` (blocked: ${e.blockedReason})` : ""}`] : []),
    ...(e.redirectedTo ? [`redirected to: ${e.redirectedTo}`] : []),
    `timing: ${[...phase("blocked", timings.blocked), ...phase("dns", timings.dns), ...phase("connect", timings.connect), ...phase("ssl", timings.ssl), ...phase("send", timings.send), ...phase("wait", timings.wait), ...phase("receive", timings.receive)].join(", ")}`,
    "request headers:",
    ...headerLines(e.requestHeaders),
    ...(e.postData !== undefined ? ["request body:", `  ${e.postData}${e.postDataClipped ? " (clipped)" : ""}`] : []),
    ...(e.responseHeaders ? ["response headers:", ...headerLines(e.responseHeaders)] : []),
  ];
  if (body) {
    const cut = body.body.length > NETWORK_MAX_BODY_CHARS;
    lines.push("", body.base64Encoded ? `body (${body.bytes} bytes, base64):` : `body (${body.bytes} bytes):`, cut ? `${body.body.slice(0, NETWORK_MAX_BODY_CHARS)}… (cut: ${body.body.length} characters)` : body.body);
  }
  const data = { request: detail, ...(body ? { body: { text: body.body, bytes: body.bytes, ...(body.base64Encoded ? { encoding: "base64" } : {}) } } : {}) };
  return { kind: "report", text: ctx.svc.secrets.text(lines.join("\n")), data };
}

export const networkRequests = capability({
  name: "network_requests",
  description: "The current tab's requests, newest last: id, method, status, type, URL, duration",
  input: {
    filter: z.string().min(1).max(1000).optional().describe("only requests whose URL contains this (case-insensitive)"),
    all: z.boolean().optional().describe("every tab's requests, not only the current tab's"),
    clear: z.boolean().optional().describe("empty the network log (every tab's) after listing it"),
  },
  only: { all: { door: "mcp", why: "the CLI lists every tab's requests, each row naming its tab" } },
  mcp: { cap: "network", annotations: readOnly("Network requests") },
  cli: {
    verb: "network requests",
    args: "",
    preset: { all: true },
    description: "list the session's requests, oldest first (the newest 1,000): id, method, status, type, URL, duration",
    examples: ["svc network requests", "svc network requests --filter /api/", "svc --json network requests", "svc network requests --clear"],
    hosted: true,
  },
  run: (ctx, i) => listRequests(ctx, i),
});

export const networkRequest = capability({
  name: "network_request",
  description: "One request by id: status, headers, timing and, with body, its response body",
  input: {
    id: z.string().regex(NETWORK_REQUEST_ID, "expected r and a number (as the list of requests shows, e.g. r12)").describe("the request's id as the list of requests shows it, e.g. r12"),
    body: z.boolean().optional().describe("also the response body, as Chrome still holds it (at most 10 MB; a binary body as base64; the text cut past 50,000 characters)"),
  },
  mcp: { cap: "network", annotations: readOnly("Network request") },
  cli: {
    verb: "network request",
    args: "<id>",
    description: "show one request (an id from svc network requests): status, headers, timing; --body: its response body, as Chrome still holds it",
    examples: ["svc network request r12", "svc network request r12 --body", "svc --json network request r12 --body"],
    hosted: true,
  },
  run: (ctx, i) => showRequest(ctx, i),
});

export const NETWORK_CAPABILITIES: readonly Capability[] = [networkRequests, networkRequest] as readonly Capability[];
