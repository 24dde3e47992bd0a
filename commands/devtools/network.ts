/**
 * `svc network requests` and `svc network request ID [--body]`: every tab's requests, as the host recorded them
 * between commands too (host/network.ts). The host is asked to flush first (a control request, answered even
 * mid-command), then the file is read; a body is asked of the host, since Chrome keeps it on the page's session.
 */
import { type NetworkEntry, NETWORK_REQUEST_ID, ServiceInvalidArgumentError, durationWord, entryDuration, headerLines, statusWord, isCloud, sessionNetworkLog, sessionTabStore, type StoredSession } from "../../src/base.js";
import { askSessionHost } from "../host/ask.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { output, resolveSession, stateRoot } from "../core/runtime.js";


/** The live local session whose host holds the network log (a cloud session has none). */
export async function networkSession(g: GlobalOptions, what: string): Promise<{ root: string; session: StoredSession }> {
  const root = stateRoot();
  const session = await resolveSession(root, g.session);
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: svc ${what} records a local session's requests`, { hint: "svc sessions start (local), or --session ID" });
  return { root, session };
}

/** The log as the host holds it now (it writes its pending batch first). */
async function readLog(root: string, session: StoredSession): Promise<NetworkEntry[]> {
  await askSessionHost(root, session.id, { control: "networkFlush" });
  return sessionNetworkLog(session.id, root).read();
}

function tabNumbers(session: StoredSession, root: string): (target: string) => number | null {
  const ids = sessionTabStore(session.id, root).load().ids;
  return (t) => ids[t] ?? null;
}


/** What a listing shows of a request (its headers and timing are `svc network request ID`'s). */
function row(e: NetworkEntry, tab: number | null) {
  return {
    id: e.id,
    method: e.method,
    status: e.status ?? null,
    state: e.state,
    type: e.type,
    url: e.url,
    duration: entryDuration(e) ?? null,
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

export async function requests(g: GlobalOptions, flags: { filter?: string; clear?: boolean }): Promise<void> {
  const out = output(g);
  if (flags.filter !== undefined && (flags.filter.length === 0 || flags.filter.length > 1000)) throw new ServiceInvalidArgumentError("--filter: expected 1 to 1000 characters");
  const { root, session } = await networkSession(g, "network requests");
  const all = await readLog(root, session);
  const needle = flags.filter?.toLowerCase();
  const shown = needle === undefined ? all : all.filter((e) => e.url.toLowerCase().includes(needle));
  if (flags.clear) sessionNetworkLog(session.id, root).clear();
  const tab = tabNumbers(session, root);
  const rows = shown.map((e) => row(e, tab(e.target)));
  out.result({ session: session.id, requests: rows, ...(flags.clear ? { cleared: true } : {}) }, () => {
    const lines = table(shown.map((e) => [e.id, e.method, statusWord(e), e.type, e.url, durationWord(e), e.failure ?? ""]));
    if (flags.clear) lines.push(`cleared ${all.length === 0 ? "(it was empty)" : ""}`.trim());
    return lines.length ? lines.map((l) => l.trimEnd()) : `no requests${needle === undefined ? "" : ` whose URL contains ${JSON.stringify(flags.filter)}`}`;
  });
}

const bytes = (n: number | undefined) => (n === undefined ? "-" : n < 10_000 ? `${n} B` : n < 10_000_000 ? `${Math.round(n / 1000)} kB` : `${Math.round(n / 1_000_000)} MB`);

export async function request(g: GlobalOptions, id: string, flags: { body?: boolean }): Promise<void> {
  const out = output(g);
  if (!NETWORK_REQUEST_ID.test(id)) throw new ServiceInvalidArgumentError(`request id: expected r and a number (as svc network requests shows), got ${JSON.stringify(id.slice(0, 40))}`);
  const { root, session } = await networkSession(g, "network request");
  const e = (await readLog(root, session)).find((x) => x.id === id);
  if (!e) throw new ServiceInvalidArgumentError(`no request ${id} in session ${session.id}'s network log (it keeps the newest requests, and --clear empties it)`, { hint: "svc network requests lists them" });
  const body = flags.body ? await askSessionHost<{ body: string; base64Encoded: boolean; bytes: number }>(root, session.id, { control: "networkBody", id }, 60_000) : undefined;
  const { harTimings } = await import("../../src/internal.js");
  const timings = harTimings(e);
  const tab = tabNumbers(session, root)(e.target);
  const detail = { ...row(e, tab), requestHeaders: e.requestHeaders, ...(e.responseHeaders ? { responseHeaders: e.responseHeaders } : {}), ...(e.postData !== undefined ? { postData: e.postData } : {}), ...(e.remoteAddress ? { remoteAddress: e.remoteAddress, remotePort: e.remotePort ?? null } : {}), ...(e.protocol ? { protocol: e.protocol } : {}), ...(e.fromCache ? { fromCache: e.fromCache } : {}), timings, ...(e.timing ? { timing: e.timing } : {}) };
  out.result({ session: session.id, request: detail, ...(body ? { body: { text: body.body, bytes: body.bytes, ...(body.base64Encoded ? { encoding: "base64" } : {}) } } : {}) }, () => {
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
    if (body) lines.push("", body.base64Encoded ? `body (${body.bytes} bytes, base64):` : `body (${body.bytes} bytes):`, body.body);
    return lines;
  });
}
