/**
 * Seeded generators of hostile input for the server fuzz test: a small PRNG (mulberry32, so a seed reproduces a run),
 * adversarial JSON, mutated bodies, deep documents built as text (as objects they would recurse in the test itself),
 * junk paths, multipart uploads, and a raw-socket client for what fetch() refuses to send.
 */
import { connect } from "node:net";
import { strToU8, zipSync } from "fflate";

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "%ff%fe",
  "%",
  "../../../../etc/passwd",
  "file:///etc/passwd",
  "chrome://version",
  "javascript:alert(1)",
  "data:text/html,<h1>x</h1>",
  "about:blank",
  "http://127.0.0.1:1/",
  "http://[::ffff:127.0.0.1]:9222/json/version",
  "ws://127.0.0.1:9222/devtools/browser/x",
  "http://169.254.169.254/latest/meta-data/",
  "__proto__",
  "constructor",
  "toString",
  "REQUEST_RELEASE",
  "RUNNING",
  "openai/gpt-4o-mini",
  "nonsense-model",
  "xpath=/html/body",
  "//*[",
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "'; DROP TABLE sessions; --",
  "user_metadata['a']:'b'",
  "1e309",
  "NaN",
];

const NASTY_NUMBERS = [0, -0, -1, 1, 1.5, 59, 60, 61, 21601, 2 ** 31, 2 ** 53 + 1, -(2 ** 53), 1e308, -1e308, 5e-324, 10000, 10001];

/** A JSON value of at most `depth` levels, biased towards what breaks validators. */
export function junkValue(rng: Rng, depth = 3): unknown {
  const kind = rng.int(0, depth > 0 ? 9 : 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick(NASTY_NUMBERS);
    case 3:
    case 4:
      return rng.pick(NASTY_STRINGS);
    case 5:
      return rng.chance(0.2) ? "x".repeat(rng.pick([300, 5000, 70_000])) : `s${rng.int(0, 999)}`;
    case 6:
      return rng.pick([[], {}, [null], { "": "" }]);
    case 7:
      return Array.from({ length: rng.int(0, 4) }, () => junkValue(rng, depth - 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(0, 4); i > 0; i--) o[rng.chance(0.7) ? rng.pick(NASTY_STRINGS) || "k" : `k${i}`] = junkValue(rng, depth - 1);
      return o;
    }
  }
}

/** Paths (as key lists) of every value inside `v`, the root included. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** A copy of a valid body with one place changed: a junk value, a wrong type, a deleted or an extra key. */
export function mutate(rng: Rng, body: unknown): unknown {
  const copy = structuredClone(body) as unknown;
  const all = paths(copy);
  const path = rng.pick(all);
  if (!path.length) return rng.chance(0.5) ? junkValue(rng) : copy;
  const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy);
  const key = path[path.length - 1]!;
  const roll = rng.int(0, 3);
  if (roll === 0 && !Array.isArray(parent)) delete parent[key];
  else if (roll === 1 && !Array.isArray(parent)) parent[rng.pick(NASTY_STRINGS) || "extra"] = junkValue(rng, 2);
  else parent[key] = junkValue(rng, 2);
  return copy;
}

/** `inner` wrapped in `levels` arrays/objects, as text. */
export function deepText(rng: Rng, levels: number, inner = "1"): string {
  if (rng.chance(0.5)) return "[".repeat(levels) + inner + "]".repeat(levels);
  return '{"a":'.repeat(levels) + inner + "}".repeat(levels);
}

/** The kinds of body bodyText sends; a run counts them to show each was sent. */
export const BODY_CLASSES = ["mutated", "valid", "deep field", "junk value", "broken JSON", "cut", "padded", "empty", "many keys"] as const;

/**
 * A body as sent: valid JSON, broken JSON, deep JSON at some field, or something else entirely. `seen`
 * counts the kinds sent (BODY_CLASSES).
 */
export function bodyText(rng: Rng, template: unknown, seen?: Map<string, number>): string {
  const roll = rng.int(0, 99);
  const kind = BODY_CLASSES[[45, 55, 65, 72, 80, 85, 90, 94, 100].findIndex((bound) => roll < bound)]!;
  seen?.set(kind, (seen.get(kind) ?? 0) + 1);
  if (roll < 45) return JSON.stringify(mutate(rng, template));
  if (roll < 55) return JSON.stringify(template);
  if (roll < 65) {
    // Deep nesting where a field of the template was.
    const text = JSON.stringify(mutate(rng, template) ?? {});
    const deep = deepText(rng, rng.pick([65, 200, 5_000, 50_000]));
    return /:\s*("[^"]*"|[-\d.eE+]+|true|false|null)/.test(text) ? text.replace(/:\s*("[^"]*"|[-\d.eE+]+|true|false|null)/, `:${deep}`) : deep;
  }
  if (roll < 72) return JSON.stringify(junkValue(rng, 4));
  if (roll < 80) return rng.pick(["{", "}", "[1,]", "nul", '{"a":1}{"b":2}', '{"a":"\\ud800"}', '{"a":NaN}', "\ufeff{}", "'single'", '{"a":1e999}', "[".repeat(64), '"\\u0000"']);
  if (roll < 85) return JSON.stringify(template).slice(0, rng.int(0, JSON.stringify(template).length));
  if (roll < 90) return JSON.stringify({ ...(template as object), pad: "p".repeat(rng.pick([100_000, 300_000])) });
  if (roll < 94) return "";
  return JSON.stringify({ ...(template as object), ...Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])) });
}

/** Segments for ids and tokens in paths: escapes Node and decodeURIComponent refuse, traversal, long. */
export function junkSegment(rng: Rng): string {
  return rng.pick([
    "%ff",
    "%",
    "%E0%A4%A",
    "%00",
    "..",
    "..%2f..%2fetc%2fpasswd",
    "%2e%2e",
    "x".repeat(rng.pick([10, 300, 6000])),
    "00000000-0000-0000-0000-000000000000",
    "%F0%9F%98%80",
    "a%20b",
    "__proto__",
    "constructor",
    "*",
    "json",
  ]);
}

export interface RawAnswer {
  text: string;
  /** The status of the first response line, if one came. */
  status: number | undefined;
  /** True when nothing closed the exchange within the wait (the socket was then destroyed). */
  timedOut: boolean;
}

/**
 * Writes `data` on a fresh connection to 127.0.0.1:`port` and collects the answer until the server closes
 * the connection or `waitMs` passed (then the socket is destroyed). `endAfterFirstResponse`: close as soon
 * as a status line and the header block arrived (WebSocket upgrades that succeed stay open).
 */
export function rawExchange(port: number, data: string | Buffer, waitMs: number, endAfterFirstResponse = false): Promise<RawAnswer> {
  return new Promise((resolvePromise) => {
    let text = "";
    let done = false;
    const socket = connect(port, "127.0.0.1", () => socket.write(data));
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolvePromise({ text, status: m ? Number(m[1]) : undefined, timedOut });
    };
    const timer = setTimeout(() => finish(true), waitMs);
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      if (endAfterFirstResponse && text.includes("\r\n\r\n")) finish(false);
    });
    socket.on("close", () => finish(false));
    socket.on("error", () => finish(false));
  });
}

/** Zip entries built to trip an unpacker: names the file system refuses, escapes, a junk or missing manifest. */
function junkZip(rng: Rng): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const manifest = rng.pick([
    JSON.stringify({ manifest_version: 3, name: "fuzz", version: "1.0" }),
    JSON.stringify(junkValue(rng, 2)),
    "{ not json",
    JSON.stringify({ manifest_version: 2, name: "x", version: "1" }),
  ]);
  if (rng.chance(0.8)) files[rng.pick(["manifest.json", "top/manifest.json", "a/b/manifest.json"])] = strToU8(manifest);
  for (let i = rng.int(0, 4); i > 0; i--) {
    const name = rng.pick([`${"n".repeat(rng.pick([255, 256, 300, 600]))}.js`, "a", "a/b.js", "a/", "../x.js", "x/../../y", "./c.js", "é".repeat(130), "d//e", "__MACOSX/f", `f${i}.txt`]);
    files[name] = rng.chance(0.1) ? new Uint8Array(rng.pick([0, 1024, 200_000])) : strToU8(`// ${i}`);
  }
  try {
    return zipSync(files, { level: rng.pick([0, 6]) as 0 | 6 });
  } catch {
    return strToU8("PK not really");
  }
}

/**
 * A multipart/form-data upload as sent on the wire (content type and bytes): a zip of junk entries in the
 * `file` field, or the envelope itself broken (wrong boundary, no closing line, another field, two files).
 */
export function multipartUpload(rng: Rng): { contentType: string; body: Buffer } {
  const boundary = `----svcfuzz${rng.int(0, 1e9)}`;
  let zip = Buffer.from(junkZip(rng));
  if (rng.chance(0.15)) zip = zip.subarray(0, rng.int(0, zip.length));
  if (rng.chance(0.1)) zip = Buffer.from(Array.from({ length: rng.int(0, 2000) }, () => rng.int(0, 255)));
  const part = (field: string, data: Buffer, filename = "x.zip") =>
    Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/zip\r\n\r\n`, "latin1"), data, Buffer.from("\r\n")]);
  const close = Buffer.from(`--${boundary}--\r\n`);
  const roll = rng.int(0, 9);
  const contentType = roll === 0 ? "multipart/form-data" : roll === 1 ? `multipart/form-data; boundary=${boundary}x` : `multipart/form-data; boundary=${boundary}`;
  if (roll === 2) return { contentType, body: part("file", zip) }; // no closing boundary
  if (roll === 3) return { contentType, body: Buffer.concat([part("upload", zip), close]) };
  if (roll === 4) return { contentType, body: Buffer.concat([part("file", zip), part("file", zip), close]) };
  if (roll === 5) return { contentType, body: Buffer.concat([part("file", zip, rng.pick(["", "../../evil.zip", "\u0000.zip", "x".repeat(5000)])), close]) };
  return { contentType, body: Buffer.concat([part("file", zip), close]) };
}
