/**
 * Fuzzing the built `svc serve` (two keys, real Chrome) with malformed, oversized, nested and adversarial requests on
 * every route, plus raw-socket ones fetch() cannot send. Fails on: the server exiting, an undocumented 5xx, a hang, a
 * cross-key 2xx, an internal error logged, an SSE stream without one terminal event, a Chrome left over. Seeded
 * (SVC_FUZZ_SEED replays) and counted, not timed.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, chromePidsOf, type Sandbox, sandbox, waitFor } from "../cli/helpers.js";
import { type Served, startServe } from "../cli/serve-helpers.js";
import { BODY_CLASSES, bodyText, deepText, junkSegment, junkValue, multipartUpload, rawExchange, Rng } from "../support/fuzz.js";

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 0x5eed_2026);
const KEY_A = "fuzz-key-aaaa-000001";
const KEY_B = "fuzz-key-bbbb-000002";
const REQUESTS = count("SVC_FUZZ_REQUESTS", 300);
const RAW_REQUESTS = count("SVC_FUZZ_RAW_REQUESTS", 150);
/** How often each route, kind of body and raw class is sent at least. */
const MIN_PER_CLASS = 8;
const CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 40_000;

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new Error(`${name} must be an integer from 1 to 1000000, got ${JSON.stringify(raw)}`);
  return n;
}

type Who = "A" | "B";
interface Req {
  label: string;
  method: string;
  path: string;
  key: string | undefined;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** 5xx statuses this route documents. */
  allowed5xx?: readonly number[];
  /** Names another key's session: must never succeed. */
  cross?: boolean;
}

let sb: Sandbox;
let served: Served;
const ids = { a1: "", a1Token: "", a1Browser: "", a2: "", b1: "", b2: "" };
const failures: string[] = [];
let sent = 0;
const statuses = new Map<number, number>();
const bodyKinds = new Map<string, number>();
const sentBody = (rng: Rng, template: unknown) => bodyText(rng, template, bodyKinds);

/** How many times each of `labels` occurs in `items` (every one listed, zero included). */
function tally(items: readonly { label: string }[], labels: readonly string[] = []): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(labels.map((l) => [l, 0]));
  for (const { label } of items) out[label] = (out[label] ?? 0) + 1;
  return out;
}

function fail(what: string): void {
  if (failures.length < 25) failures.push(`[seed ${SEED}] ${what}`);
}

const describeReq = (r: Req) => `${r.label}: ${r.method} ${r.path.slice(0, 120)} key=${r.key === KEY_A ? "A" : r.key === KEY_B ? "B" : String(r.key).slice(0, 10)} body=${JSON.stringify(typeof r.body === "string" || r.body === undefined ? (r.body ?? "").slice(0, 160) : r.body.subarray(0, 160).toString("latin1"))}`;

async function call(method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { ...(key ? { "x-bb-api-key": key } : {}), "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Chrome processes of this server: marked with the sandbox's TMPDIR. */
const chromes = () => chromePidsOf(sb.tmp);
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

beforeAll(async () => {
  assertBuilt();
  sb = sandbox();
  served = await startServe(sb.env, ["--api-key", KEY_A, "--api-key", KEY_B, "--max-sessions", "4", "--warm-browsers", "0"], ["--json", "--verbose", "1"]);
  const a1 = await call("POST", "/v1/sessions", KEY_A, { userMetadata: { run: "fuzz" } });
  const b1 = await call("POST", "/v1/sessions", KEY_B, {});
  const a2 = await call("POST", "/v1/sessions/start", KEY_A, { modelName: "openai/gpt-4o-mini" });
  const b2 = await call("POST", "/v1/sessions/start", KEY_B, { modelName: "openai/gpt-4o-mini" });
  expect([a1.status, b1.status, a2.status, b2.status], JSON.stringify([a1.body, b1.body, a2.body, b2.body])).toEqual([201, 201, 200, 200]);
  const connect = new URL(a1.body.connectUrl as string);
  const [, , , id, token, ...rest] = connect.pathname.split("/");
  Object.assign(ids, { a1: a1.body.id, a1Token: token, a1Browser: `/${rest.join("/")}`, a2: a2.body.data.sessionId, b1: b1.body.id, b2: b2.body.data.sessionId });
  expect(id).toBe(ids.a1);
}, 60_000);

afterAll(async () => {
  if (served && served.child.exitCode === null) served.child.kill("SIGKILL");
  sb?.cleanup();
});

/**
 * A session id as a request names it: its own, the other key's, or junk. Operations go to the session-API
 * sessions (a2, b2); starts attach to the platform ones (a1, b1), so an attach, which replaces the session
 * on that browser, never interrupts the fuzz's own operations.
 */
function pickId(rng: Rng, who: Who, ops = false): { id: string; cross: boolean } {
  const own = ops ? [who === "A" ? ids.a2 : ids.b2] : who === "A" ? [ids.a1, ids.a2] : [ids.b1, ids.b2];
  const other = ops ? [who === "A" ? ids.b2 : ids.a2] : who === "A" ? [ids.b1, ids.b2] : [ids.a1, ids.a2];
  const roll = rng.next();
  if (roll < 0.5) return { id: rng.pick(own), cross: false };
  if (roll < 0.75) return { id: rng.pick(other), cross: true };
  return { id: junkSegment(rng), cross: false };
}

const OP_TEMPLATES: Record<string, unknown> = {
  act: { input: { selector: "xpath=/html/body", description: "the page", method: "scrollTo", arguments: ["50%"] }, options: { timeout: 2000 } },
  extract: { instruction: "the title", schema: { type: "object", properties: { title: { type: "string" } } }, options: { timeout: 2000 } },
  observe: { instruction: "buttons", options: { model: { modelName: "openai/gpt-4o-mini", baseURL: "http://127.0.0.1:1/v1" } } },
  navigate: { url: "data:text/html,<title>fuzz</title><button>b</button>", options: { waitUntil: "load", timeout: 5000 } },
  agentExecute: { agentConfig: { model: "openai/gpt-4o-mini", mode: "dom" }, executeOptions: { instruction: "open the page", maxSteps: 1 } },
};

/** The label of every kind of request nextRequest sends: each must be sent MIN_PER_CLASS times. */
const HTTP_LABELS = ["platform create", "platform list", "platform get", "platform release", "debug", "search", "fetch", "session start", ...Object.keys(OP_TEMPLATES).map((op) => `session ${op}`), "session replay", "session end", "connect http", "extension upload", "odd path"];
/** The label of every raw class nextRaw sends. */
const RAW_LABELS = ["bad chunk size", "chunk overrun", "CL+TE", "bad content-length", "odd target", "bad header", "odd request line", "cut body", "ws junk", "ws token", "ws elsewhere", "raw CONNECT", "raw TRACE", "deep body"];

/** At least `atLeast` items from `next`, and more until every one of `labels` came MIN_PER_CLASS times. */
function generate<T extends { label: string }>(atLeast: number, next: () => T, labels: readonly string[], alsoCovered: () => boolean = () => true): T[] {
  const out: T[] = [];
  const covered = () => Object.values(tally(out, labels)).every((n) => n >= MIN_PER_CLASS) && alsoCovered();
  while (out.length < atLeast || !covered()) out.push(next());
  return out;
}

/** One HTTP request (fetch can send it) for some route, from the seeded stream. */
function nextRequest(rng: Rng): Req {
  const who: Who = rng.chance(0.5) ? "A" : "B";
  const keyRoll = rng.next();
  const key = keyRoll < 0.93 ? (who === "A" ? KEY_A : KEY_B) : keyRoll < 0.96 ? undefined : rng.pick(["not-a-known-key", "x", KEY_A.toUpperCase(), `${KEY_A}x`, `${KEY_B.slice(0, -1)}`]);
  const headers: Record<string, string> = { "content-type": rng.pick(["application/json", "application/json", "text/plain", "multipart/form-data; boundary=x", ""]) };
  if (rng.chance(0.3)) headers["x-stream-response"] = rng.pick(["true", "TRUE", "false", "yes"]);
  if (rng.chance(0.1)) Object.assign(headers, { "x-language": "typescript", "x-sdk-version": "3.0.0" });
  if (rng.chance(0.05)) headers["browserbase-cache-bypass"] = "true";
  const route = rng.int(0, 99);

  if (route < 8) return { label: "platform create", method: "POST", path: "/v1/sessions", key, headers, body: sentBody(rng, { userMetadata: { run: "1", n: { k: "v" } }, browserSettings: { viewport: { width: 800, height: 600 } }, timeout: 60, keepAlive: false }) };
  if (route < 16) {
    const params = new URLSearchParams();
    if (rng.chance(0.7)) params.set("status", rng.pick(["RUNNING", "COMPLETED", "running", "%ff", "", "x".repeat(50)]));
    if (rng.chance(0.6)) params.set("q", rng.pick(["user_metadata['run']:'fuzz'", "user_metadata['a']['b']:'c' AND user_metadata['d']:'e'", "junk", "user_metadata[", "'".repeat(500), "x".repeat(5000)]));
    if (rng.chance(0.2)) params.set(rng.pick(["__proto__", "constructor", "status[]", "q"]), String(junkValue(rng, 0)));
    const raw = rng.chance(0.15) ? rng.pick(["?status=%ff", "?q=%zz%", "?&&&=", "?status=RUNNING&status=COMPLETED", `?${"a=1&".repeat(900)}`]) : `?${params}`;
    return { label: "platform list", method: "GET", path: `/v1/sessions${raw}`, key, headers };
  }
  if (route < 24) {
    const { id, cross } = pickId(rng, who);
    return { label: "platform get", method: "GET", path: `/v1/sessions/${id}`, key, headers, cross };
  }
  if (route < 30) {
    // Releases only of junk or the other key's sessions: the real ones must live through the run.
    const { id, cross } = rng.chance(0.5) ? { id: junkSegment(rng), cross: false } : { id: rng.pick(who === "A" ? [ids.b1, ids.b2] : [ids.a1, ids.a2]), cross: true };
    return { label: "platform release", method: "POST", path: `/v1/sessions/${id}`, key, headers, body: sentBody(rng, { status: "REQUEST_RELEASE" }), cross };
  }
  if (route < 34) {
    const { id, cross } = pickId(rng, who);
    return { label: "debug", method: "GET", path: `/v1/sessions/${id}/debug`, key, headers, cross, allowed5xx: [502] };
  }
  if (route < 40) return { label: "search", method: "POST", path: "/v1/search", key, headers, body: sentBody(rng, { query: "svc fuzz", numResults: 5 }), allowed5xx: [501, 502, 504] };
  if (route < 46) return { label: "fetch", method: "POST", path: "/v1/fetch", key, headers, body: sentBody(rng, { url: rng.pick(["http://127.0.0.1:1/", "http://[::1]:9/", "http://169.254.169.254/", "http://0.0.0.0:1/"]), format: "raw", allowRedirects: false }), allowed5xx: [502, 504] };
  if (route < 50) {
    // Attaching to an existing session (no new Chrome); a mutation may make it a fresh start (maxSessions bounds those).
    const own = who === "A" ? ids.a1 : ids.b1;
    const other = who === "A" ? ids.b1 : ids.a1;
    const target = rng.chance(0.7) ? own : other;
    const body = sentBody(rng, { modelName: "openai/gpt-4o-mini", browserbaseSessionID: target, verbose: 1, domSettleTimeoutMs: 500 });
    let cross = false;
    try {
      const parsed = JSON.parse(body) as { browserbaseSessionID?: unknown; browser?: { type?: unknown } };
      cross = target === other && parsed.browserbaseSessionID === other && parsed.browser?.type !== "local";
    } catch {
      // not JSON: a 400
    }
    return { label: "session start", method: "POST", path: "/v1/sessions/start", key, headers, body, cross };
  }
  if (route < 66) {
    const op = rng.pick(Object.keys(OP_TEMPLATES));
    const { id, cross } = pickId(rng, who, true);
    return { label: `session ${op}`, method: "POST", path: `/v1/sessions/${id}/${op}`, key, headers, body: sentBody(rng, OP_TEMPLATES[op]), cross };
  }
  if (route < 72) {
    const { id, cross } = pickId(rng, who, true);
    return { label: "session replay", method: "GET", path: `/v1/sessions/${id}/replay`, key, headers, cross };
  }
  if (route < 76) {
    const { id, cross } = rng.chance(0.5) ? { id: junkSegment(rng), cross: false } : { id: who === "A" ? ids.b2 : ids.a2, cross: true };
    return { label: "session end", method: "POST", path: `/v1/sessions/${id}/end`, key, headers, body: rng.chance(0.5) ? "" : sentBody(rng, {}), cross };
  }
  if (route < 88) {
    const id = rng.chance(0.6) ? ids.a1 : junkSegment(rng);
    const token = rng.chance(0.6) ? ids.a1Token : junkSegment(rng);
    const rest = rng.pick(["/json/version", "/json/list", "/json", "/json/protocol", "/devtools/inspector.html", "/json/close/junk", "/json/new?about:blank", "/", "/etc/passwd", "/json/../../x", `/devtools/${junkSegment(rng)}`, ids.a1Browser]);
    return { label: "connect http", method: rng.pick(["GET", "GET", "POST", "PUT"]), path: `/v1/connect/${id}/${token}${rest}`, key: rng.chance(0.5) ? key : undefined, headers, allowed5xx: [502, 504] };
  }
  if (route < 94) {
    const upload = multipartUpload(rng);
    return { label: "extension upload", method: "POST", path: "/v1/extensions", key, headers: { "content-type": upload.contentType }, body: upload.body };
  }
  const path = rng.pick(["/", "/v1", "/v1/", "/healthz", "/v1/sessions/", "//v1/sessions", "/V1/SESSIONS", "/v1/sessions/x/y/z", `/v1/${junkSegment(rng)}`, "/v1/sessions/%ff/act", "/v1/connect/%ff/x/json", "/v1/connect/x", "/v1/search/"]);
  return { label: "odd path", method: rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]), path, key, headers, body: rng.chance(0.3) ? sentBody(rng, {}) : undefined };
}

/** Reads an SSE body and checks it ends with exactly one terminal event. */
function checkStream(r: Req, text: string): void {
  const statuses = [...text.matchAll(/^data: (.*)$/gm)].map((m) => {
    try {
      return (JSON.parse(m[1]!) as { data?: { status?: string } }).data?.status;
    } catch {
      return "unparsable";
    }
  });
  const terminal = statuses.filter((s) => s === "finished" || s === "error");
  if (terminal.length !== 1 || (statuses.at(-1) !== "finished" && statuses.at(-1) !== "error") || statuses.includes("unparsable")) {
    fail(`${describeReq(r)} → stream events ${JSON.stringify(statuses)}`);
  }
}

async function send(r: Req): Promise<void> {
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (r.key !== undefined) headers["x-bb-api-key"] = r.key;
  if (!headers["content-type"]) delete headers["content-type"];
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${served.url}${r.path}`, {
      method: r.method,
      headers,
      ...(r.body !== undefined && r.method !== "GET" && r.method !== "HEAD" ? { body: typeof r.body === "string" ? r.body : new Uint8Array(r.body) } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await res.text();
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    fail(`${describeReq(r)} → no answer: ${(e as Error).name} ${(e as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`);
    return;
  }
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500 && !(r.allowed5xx ?? []).includes(res.status)) fail(`${describeReq(r)} → ${res.status} ${text.slice(0, 200)}`);
  if (r.cross && res.status < 300) fail(`${describeReq(r)} → ${res.status}: another key's session answered`);
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) checkStream(r, text);
}

/** Raw requests: what the HTTP parser, the body reader and the CDP proxy's upgrade path must survive. */
function nextRaw(rng: Rng): { label: string; data: string; answer: boolean; allowed5xx: readonly number[]; status?: number } {
  const key = rng.pick([KEY_A, KEY_B]);
  const route = rng.pick(["/v1/sessions", "/v1/search", "/v1/fetch", "/v1/sessions/start", `/v1/sessions/${ids.a2}/act`, `/v1/sessions/${ids.a1}`]);
  const kind = rng.int(0, 13);
  const head = (extra: string) => `POST ${route} HTTP/1.1\r\nHost: x\r\nx-bb-api-key: ${key}\r\nContent-Type: application/json\r\n${extra}`;
  const ws = (path: string, extra = "") => `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${rng.pick(["dGhlIHNhbXBsZSBub25jZQ==", "junk", ""])}\r\nSec-WebSocket-Version: ${rng.pick(["13", "8", "x"])}\r\n${extra}\r\n`;
  switch (kind) {
    case 0:
      return { label: "bad chunk size", data: `${head("Transfer-Encoding: chunked\r\n\r\n")}${rng.pick(["zz", "-1", "ffffffffffffffffffff", "2;" + "x".repeat(20_000), "", " 2"])}\r\n{}\r\n0\r\n\r\n`, answer: true, allowed5xx: [] };
    case 1:
      return { label: "chunk overrun", data: `${head("Transfer-Encoding: chunked\r\n\r\n")}2\r\n{}}}}\r\n0\r\n\r\n`, answer: true, allowed5xx: [] };
    case 2:
      return { label: "CL+TE", data: `${head("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n")}0\r\n\r\nGET /v1/sessions HTTP/1.1\r\nHost: x\r\n\r\n`, answer: true, allowed5xx: [] };
    case 3:
      return { label: "bad content-length", data: `${head(`Content-Length: ${rng.pick(["-1", "abc", "1, 2", "99999999999999999999", "2\r\nContent-Length: 3"])}\r\n\r\n`)}{}`, answer: true, allowed5xx: [] };
    case 4: {
      const target = rng.pick(["/v1/sessions/%ff", "/v1/sessions/%", "%ff", "*", "http://evil.example/v1/sessions", "/v1/sessions?%ff=%zz", `/v1/sessions/${"%e0%a4%a".repeat(300)}`, "/v1/connect/%ff/%fe/json/version", `/${"a".repeat(20_000)}`]);
      return { label: "odd target", data: `GET ${target} HTTP/1.1\r\nHost: x\r\nx-bb-api-key: ${key}\r\nConnection: close\r\n\r\n`, answer: true, allowed5xx: [] };
    }
    case 5:
      return { label: "bad header", data: `GET /v1/sessions HTTP/1.1\r\n${rng.pick(["Bad Header: y", "NoColon", " folded: y", "x-bb-api-key: \u0000", "Host: a\r\nHost: b"])}\r\nx-bb-api-key: ${key}\r\n\r\n`, answer: true, allowed5xx: [] };
    case 6:
      return { label: "odd request line", data: rng.pick(["FOO /v1/sessions HTTP/1.1\r\n\r\n", "GET /v1/sessions HTTP/9.9\r\n\r\n", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003", "GET\r\n\r\n", "\r\n\r\n\r\n"]), answer: false, allowed5xx: [] };
    case 7:
      return { label: "cut body", data: `${head("Content-Length: 100\r\nConnection: close\r\n\r\n")}{"query":`, answer: false, allowed5xx: [] };
    case 8: {
      const path = `/v1/connect/${rng.pick([junkSegment(rng), ids.a1])}/${rng.pick([junkSegment(rng), "x"])}${rng.pick(["/devtools/browser/x", ids.a1Browser, "/json/version", "/%ff", ""])}`;
      return { label: "ws junk", data: ws(path), answer: true, allowed5xx: [502] };
    }
    case 9: {
      const rest = rng.pick([ids.a1Browser, "/devtools/page/junk", "/devtools/browser/%ff", "/json/version", "/devtools/%ff%fe", "/../../x"]);
      return { label: "ws token", data: ws(`/v1/connect/${ids.a1}/${ids.a1Token}${rest}`) + rng.pick(["", "\u0081\u0085junk!", "\u0088\u0080", "x".repeat(100)]), answer: true, allowed5xx: [502] };
    }
    case 10:
      return { label: "ws elsewhere", data: ws(rng.pick(["/v1/sessions", "/healthz", "/", "/v1/connect/%ff/x/devtools/browser/x"]), rng.pick(["", "Upgrade: h2c\r\n"])), answer: true, allowed5xx: [502] };
    case 11:
    case 12: {
      // Node hands CONNECT only to a 'connect' listener (silence without one); TRACE goes to the app.
      const method = rng.pick(["CONNECT", "TRACE"]);
      const target = method === "CONNECT" ? rng.pick(["127.0.0.1:9222", "example.com:443", "[::1]:22", "%ff:1", "x"]) : rng.pick(["/", "/v1/sessions", `/v1/sessions/${ids.a1}`, "/v1/extensions"]);
      return { label: `raw ${method}`, data: `${method} ${target} HTTP/1.1\r\nHost: x\r\nx-bb-api-key: ${key}\r\nConnection: close\r\n\r\n${method === "CONNECT" ? rng.pick(["", "junk after the head"]) : ""}`, answer: true, allowed5xx: [], status: 405 };
    }
    default:
      return { label: "deep body", data: (() => { const b = deepText(rng, 100_000); return `${head(`Content-Length: ${b.length}\r\nConnection: close\r\n\r\n`)}${b}`; })(), answer: true, allowed5xx: [501] };
  }
}

describe("svc serve under fuzzing (two keys, every route)", () => {
  it("answers every request with a 4xx or a documented status, never crashes, never hangs", async () => {
    const rng = new Rng(SEED);
    const queue = generate(REQUESTS, () => nextRequest(rng), HTTP_LABELS, () => BODY_CLASSES.every((k) => (bodyKinds.get(k) ?? 0) >= MIN_PER_CLASS));
    const byLabel = tally(queue, HTTP_LABELS);
    // A few oversized bodies (past the 10 MB default limit): 413, not a crash or a hang.
    for (let i = 0; i < 3; i++) queue.splice(rng.int(0, queue.length), 0, { label: "huge body", method: "POST", path: rng.pick(["/v1/sessions", "/v1/search", `/v1/sessions/${ids.a2}/act`]), key: KEY_A, body: `{"a":"${"h".repeat(11 * 1024 * 1024)}"}` });
    const total = queue.length;
    const worker = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        await send(r);
        sent++;
        if (served.child.exitCode !== null) {
          fail(`the server exited (code ${served.child.exitCode}) after ${describeReq(r)}`);
          return;
        }
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(`server fuzz: seed ${SEED}, ${sent} requests in ${Date.now() - t0} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; routes ${JSON.stringify(byLabel)}; bodies ${JSON.stringify(Object.fromEntries(bodyKinds))}`);
    expect(failures, `seed ${SEED}, ${sent} requests`).toEqual([]);
    expect(sent).toBe(total);
    for (const label of HTTP_LABELS) expect(byLabel[label], `seed ${SEED}: ${label} sent`).toBeGreaterThanOrEqual(MIN_PER_CLASS);
    for (const kind of BODY_CLASSES) expect(bodyKinds.get(kind), `seed ${SEED}: ${kind} bodies`).toBeGreaterThanOrEqual(MIN_PER_CLASS);
  }, 60_000 + REQUESTS * 100);

  it("survives raw-socket abuse: parser errors, bad bodies, junk WebSocket upgrades to the CDP proxy", async () => {
    failures.length = 0; // the HTTP test reported its own
    const rng = new Rng(SEED ^ 0xabcdef);
    const cases = generate(RAW_REQUESTS, () => nextRaw(rng), RAW_LABELS);
    const byLabel = tally(cases, RAW_LABELS);
    const total = cases.length;
    let sentRaw = 0;
    const t0 = Date.now();
    const worker = async () => {
      for (let c = cases.shift(); c; c = cases.shift()) {
        sentRaw++;
        // A case expecting a status reads to the close (its body must carry the code).
        const answer = await rawExchange(served.port, c.data, c.answer ? 10_000 : 800, c.status === undefined);
        const what = `${c.label}: ${JSON.stringify(c.data.slice(0, 140))}`;
        if (c.answer && answer.status === undefined) fail(`${what} → ${answer.timedOut ? "no answer in 10 s" : `closed without an answer: ${JSON.stringify(answer.text.slice(0, 80))}`}`);
        if (answer.status !== undefined && answer.status >= 500 && !c.allowed5xx.includes(answer.status)) fail(`${what} → ${answer.text.slice(0, 200)}`);
        if (c.status !== undefined && (answer.status !== c.status || !answer.text.includes('"code":"METHOD_NOT_ALLOWED"'))) fail(`${what} → not a ${c.status} with a code: ${JSON.stringify(answer.text.slice(0, 200))}`);
        if (served.child.exitCode !== null) {
          fail(`the server exited (code ${served.child.exitCode}) after ${what}`);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(`server fuzz: ${sentRaw} raw requests in ${Date.now() - t0} ms; ${JSON.stringify(byLabel)}`);
    expect(failures, `seed ${SEED}`).toEqual([]);
    expect(sentRaw).toBe(total);
    for (const label of RAW_LABELS) expect(byLabel[label], `seed ${SEED}: ${label} sent`).toBeGreaterThanOrEqual(MIN_PER_CLASS);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
  }, 60_000 + RAW_REQUESTS * 100);

  it("ordinary use still works for both keys; the log shows no internal error; stop leaves no Chrome", async () => {
    const a1 = await call("GET", `/v1/sessions/${ids.a1}`, KEY_A);
    expect([a1.status, a1.body.status]).toEqual([200, "RUNNING"]);
    expect((await call("GET", `/v1/sessions/${ids.a1}`, KEY_B)).status).toBe(404);
    const nav = await call("POST", `/v1/sessions/${ids.a2}/navigate`, KEY_A, { url: "data:text/html,<title>after</title>" });
    expect(nav.status, JSON.stringify(nav.body)).toBe(200);
    const listed = await call("GET", "/v1/sessions?status=RUNNING", KEY_B);
    expect(listed.status).toBe(200);
    expect((listed.body as { id: string }[]).map((s) => s.id)).toContain(ids.b1);
    expect((await call("POST", `/v1/sessions/${ids.b1}`, KEY_B, { status: "REQUEST_RELEASE" })).status).toBe(200);
    expect((await call("POST", `/v1/sessions/${ids.a2}/end`, KEY_A)).status).toBe(200);
    expect((await call("POST", `/v1/sessions/${ids.b2}/end`, KEY_B)).status).toBe(200);

    const { stderr } = served.output();
    const internal = stderr.split("\n").filter((l) => /^svc serve: error |refused with 500|Uncaught|triggerUncaughtException/.test(l));
    expect(internal, `seed ${SEED}`).toEqual([]);

    expect(chromes().length).toBeGreaterThan(0);
    served.child.kill("SIGTERM");
    const done = await served.done;
    expect([done.code, done.signal]).toEqual([0, null]);
    await waitFor(() => chromes().length === 0);
    expect(chromes().map(cmdline)).toEqual([]);
  }, 60_000);
});
