/**
 * A CLI session's emulation (`svc set`): `<state>/sessions/<id>.emulation` (0600, atomic), applied by the session's
 * host to every page. The file is the one truth: a command writes it and asks the host to reread it. Every field is
 * checked on write and again on read, since the file may be hand-edited.
 */
import { join } from "node:path";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { checkId, ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { sessionsDir } from "./session-records.js";

export interface EmulatedDevice {
  name: string;
  width: number;
  height: number;
  /** The device's screen (screen.width/height), when it differs from the viewport; none: the viewport's size. */
  screen?: { width: number; height: number };
  deviceScaleFactor: number;
  mobile: boolean;
  touch: boolean;
  userAgent: string;
}

/** What a session emulates; a field left out is Chrome's own. */
export interface SessionEmulation {
  device?: EmulatedDevice;
  /** The viewport in CSS pixels; with a device, this size wins over the device's. */
  viewport?: { width: number; height: number };
  geo?: { latitude: number; longitude: number; accuracy: number };
  media?: "dark" | "light";
  offline?: boolean;
  /** Extra HTTP headers sent with every request of the session's pages. */
  headers?: Record<string, string>;
  /** Wins over the device's user agent. */
  userAgent?: string;
  /** An IANA time zone (Europe/Berlin). */
  timezone?: string;
  /** A BCP 47 language tag (de-DE): navigator.language, Intl and Accept-Language. */
  locale?: string;
}

export const EMULATION_FIELDS = ["device", "viewport", "geo", "media", "offline", "headers", "userAgent", "timezone", "locale"] as const;
export type EmulationField = (typeof EMULATION_FIELDS)[number];

/** Bounds of what a command may set. */
export const EMULATION_LIMITS = { maxViewport: 10_000, maxHeaders: 50, maxHeaderBytes: 8_192, maxUserAgent: 1_024 } as const;

export function emulationPath(root: string, id: string): string {
  return join(sessionsDir(root), `${checkId(id)}.emulation`);
}

const bad = (field: string, why: string) => new ServiceInvalidArgumentError(`invalid ${field}: ${why}`);

function intIn(field: string, v: unknown, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw bad(field, `expected a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return v;
}

function numIn(field: string, v: unknown, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) throw bad(field, `expected a number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return v;
}

export function checkViewport(field: string, v: unknown): { width: number; height: number } {
  const o = v as { width?: unknown; height?: unknown } | null;
  if (!o || typeof o !== "object") throw bad(field, "expected WxH, e.g. 390x844");
  return { width: intIn(`${field} width`, o.width, 1, EMULATION_LIMITS.maxViewport), height: intIn(`${field} height`, o.height, 1, EMULATION_LIMITS.maxViewport) };
}

export function checkUserAgent(field: string, v: unknown): string {
  if (typeof v !== "string" || !v.trim() || v.length > EMULATION_LIMITS.maxUserAgent || /[\r\n\0]/.test(v)) {
    throw bad(field, `expected one line of at most ${EMULATION_LIMITS.maxUserAgent} characters`);
  }
  return v;
}

export function checkTimezone(field: string, v: unknown): string {
  if (typeof v !== "string" || v.length > 64) throw bad(field, "expected an IANA time zone such as Europe/Berlin");
  try {
    new Intl.DateTimeFormat("en", { timeZone: v });
  } catch {
    throw bad(field, `unknown time zone ${JSON.stringify(v)} (expected an IANA name such as Europe/Berlin)`);
  }
  return v;
}

export function checkLocale(field: string, v: unknown): string {
  if (typeof v !== "string" || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(v)) throw bad(field, `expected a language tag such as de-DE, got ${JSON.stringify(v)}`);
  try {
    Intl.getCanonicalLocales(v);
  } catch {
    throw bad(field, `not a language tag: ${JSON.stringify(v)}`);
  }
  return v;
}

/** Header names Chrome sets itself or that would break the request. */
const FORBIDDEN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "upgrade", "keep-alive", "te", "trailer", "expect"]);

export function checkHeaders(field: string, v: unknown): Record<string, string> {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw bad(field, 'expected a JSON object of header names to string values, e.g. {"X-Test":"1"}');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > EMULATION_LIMITS.maxHeaders) throw bad(field, `at most ${EMULATION_LIMITS.maxHeaders} headers`);
  let bytes = 0;
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/.test(name)) throw bad(field, `header name ${JSON.stringify(name.slice(0, 60))} is not a valid HTTP token`);
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) throw bad(field, `header ${name} is set by the browser itself`);
    if (typeof value !== "string" || /[\r\n\0]/.test(value)) throw bad(field, `header ${name}: expected a one-line string value`);
    bytes += name.length + value.length;
    out[name] = value;
  }
  if (bytes > EMULATION_LIMITS.maxHeaderBytes) throw bad(field, `headers total more than ${EMULATION_LIMITS.maxHeaderBytes} bytes`);
  return out;
}

export function checkGeo(field: string, v: unknown): { latitude: number; longitude: number; accuracy: number } {
  const o = v as { latitude?: unknown; longitude?: unknown; accuracy?: unknown } | null;
  if (!o || typeof o !== "object") throw bad(field, "expected LAT LON");
  return { latitude: numIn(`${field} latitude`, o.latitude, -90, 90), longitude: numIn(`${field} longitude`, o.longitude, -180, 180), accuracy: numIn(`${field} accuracy`, o.accuracy ?? 10, 0, 100_000) };
}

function checkDevice(field: string, v: unknown): EmulatedDevice {
  const d = v as Partial<EmulatedDevice> | null;
  if (!d || typeof d !== "object" || typeof d.name !== "string" || typeof d.mobile !== "boolean" || typeof d.touch !== "boolean") throw bad(field, "expected a device of the table");
  const size = checkViewport(field, d);
  return { name: d.name.slice(0, 64), ...size, ...(d.screen !== undefined ? { screen: checkViewport(`${field} screen`, d.screen) } : {}), deviceScaleFactor: numIn(`${field} deviceScaleFactor`, d.deviceScaleFactor, 0.5, 5), mobile: d.mobile, touch: d.touch, userAgent: checkUserAgent(`${field} userAgent`, d.userAgent) };
}

/** Checks every field of an emulation (unknown fields refused); throws an INVALID_ARGUMENT naming the field. */
export function checkEmulation(v: unknown): SessionEmulation {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw bad("emulation", "expected an object");
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !(EMULATION_FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw bad(unknown.slice(0, 60), `unknown setting (known: ${EMULATION_FIELDS.join(", ")})`);
  const out: SessionEmulation = {};
  if (o.device !== undefined) out.device = checkDevice("device", o.device);
  if (o.viewport !== undefined) out.viewport = checkViewport("viewport", o.viewport);
  if (o.geo !== undefined) out.geo = checkGeo("geo", o.geo);
  if (o.media !== undefined) {
    if (o.media !== "dark" && o.media !== "light") throw bad("media", "expected dark or light");
    out.media = o.media;
  }
  if (o.offline !== undefined) {
    if (typeof o.offline !== "boolean") throw bad("offline", "expected on or off");
    if (o.offline) out.offline = true;
  }
  if (o.headers !== undefined) out.headers = checkHeaders("headers", o.headers);
  if (o.userAgent !== undefined) out.userAgent = checkUserAgent("useragent", o.userAgent);
  if (o.timezone !== undefined) out.timezone = checkTimezone("timezone", o.timezone);
  if (o.locale !== undefined) out.locale = checkLocale("locale", o.locale);
  return out;
}

/** The session's emulation file: read (checked) and written. */
export function sessionEmulationStore(id: string, root: string = resolveStateDir()): { load(): SessionEmulation; save(e: SessionEmulation): void } {
  const path = emulationPath(root, id);
  return {
    load() {
      const text = readIfExists(path);
      if (text === undefined || text.length > 100_000) return text === undefined ? {} : corrupt(path, "larger than 100 kB");
      try {
        return checkEmulation(JSON.parse(text));
      } catch (e) {
        return corrupt(path, (e as Error).message);
      }
    },
    save(e) {
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify(checkEmulation(e), null, 2)}\n`, 0o600);
    },
  };
}

function corrupt(path: string, why: string): never {
  throw new ServiceStateError(`corrupt emulation file ${path}: ${why}`, { hint: "svc set --clear, or delete the file" });
}
