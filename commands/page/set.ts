/**
 * `svc set …`: what the session's pages emulate, kept for the session (store/emulation.ts) and applied by its host to
 * every page, now and later (host/emulation.ts). The file is written first, then the host asked to apply it (a
 * control request, answered even mid-command); the answer says on how many tabs it took.
 */
import { DEVICES, ServiceInvalidArgumentError, deviceByName, ServiceStateError, type EmulationField, type SessionEmulation, checkGeo, checkHeaders, checkLocale, checkTimezone, checkUserAgent, checkViewport, isCloud, sessionEmulationStore, touchSession } from "../../src/base.js";
import { askHostFor, savedWording } from "../host/ask.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";
import { resolveSession } from "../core/session-lookup.js";

/** The names `svc set` takes, and the stored field each sets. */
export const SET_NAMES: Readonly<Record<string, EmulationField>> = {
  device: "device",
  viewport: "viewport",
  geo: "geo",
  media: "media",
  offline: "offline",
  headers: "headers",
  useragent: "userAgent",
  timezone: "timezone",
  locale: "locale",
};

const USAGE: Record<EmulationField, string> = {
  device: "NAME (svc set device --list)",
  viewport: "WxH, e.g. 390x844",
  geo: "LAT LON [ACCURACY_M]",
  media: "dark|light",
  offline: "on|off",
  headers: 'JSON, e.g. \'{"X-Test":"1"}\'',
  userAgent: "UA",
  timezone: "TZ, e.g. Europe/Berlin",
  locale: "L, e.g. de-DE",
};

/** The stored value of `svc set NAME VALUES…` (undefined: `off`, unset it). */
export function parseSetting(name: string, values: readonly string[]): { field: EmulationField; value: unknown } {
  const field = SET_NAMES[name.toLowerCase()];
  if (!field) throw new ServiceInvalidArgumentError(`unknown setting ${JSON.stringify(name.slice(0, 40))}: use one of ${Object.keys(SET_NAMES).join(", ")}`);
  const joined = values.join(" ");
  const label = name.toLowerCase();
  if (!joined.trim()) throw new ServiceInvalidArgumentError(`svc set ${label}: missing value, expected ${USAGE[field]} (or off)`);
  if (joined === "off" && field !== "offline") return { field, value: undefined };
  const one = () => {
    if (values.length !== 1) throw new ServiceInvalidArgumentError(`invalid ${label}: expected ${USAGE[field]}, got ${values.length} values`);
    return values[0]!;
  };
  switch (field) {
    case "device": {
      return { field, value: deviceByName("invalid device", joined) };
    }
    case "viewport": {
      const m = /^(\d{1,5})x(\d{1,5})$/.exec(one());
      if (!m) throw new ServiceInvalidArgumentError(`invalid viewport: expected WxH, e.g. 390x844, got ${JSON.stringify(values[0]!.slice(0, 40))}`);
      return { field, value: checkViewport("viewport", { width: Number(m[1]), height: Number(m[2]) }) };
    }
    case "geo": {
      if (values.length < 2 || values.length > 3) throw new ServiceInvalidArgumentError(`invalid geo: expected ${USAGE.geo}`);
      const [latitude, longitude, accuracy] = values.map((v) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : NaN));
      return { field, value: checkGeo("geo", { latitude, longitude, ...(values.length === 3 ? { accuracy } : {}) }) };
    }
    case "media": {
      const v = one();
      if (v !== "dark" && v !== "light") throw new ServiceInvalidArgumentError(`invalid media: expected dark, light or off, got ${JSON.stringify(v.slice(0, 40))}`);
      return { field, value: v };
    }
    case "offline": {
      const v = one();
      if (v !== "on" && v !== "off") throw new ServiceInvalidArgumentError(`invalid offline: expected on or off, got ${JSON.stringify(v.slice(0, 40))}`);
      return { field, value: v === "on" ? true : undefined };
    }
    case "headers": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(joined.length > 20_000 ? "" : joined);
      } catch {
        throw new ServiceInvalidArgumentError(`invalid headers: expected a JSON object (at most 20000 characters), e.g. '{"X-Test":"1"}'`);
      }
      return { field, value: checkHeaders("headers", parsed) };
    }
    case "userAgent":
      return { field, value: checkUserAgent("useragent", joined) };
    case "timezone":
      return { field, value: checkTimezone("timezone", one()) };
    case "locale":
      return { field, value: checkLocale("locale", one()) };
  }
}

/** One line per setting, as `svc set` shows them. */
function describe(e: SessionEmulation): string[][] {
  const rows: string[][] = [];
  if (e.device) rows.push(["  device", `${e.device.name} (${e.device.width}x${e.device.height} @${e.device.deviceScaleFactor}x${e.device.mobile ? ", mobile" : ""}${e.device.touch ? ", touch" : ""})`]);
  if (e.viewport) rows.push(["  viewport", `${e.viewport.width}x${e.viewport.height}`]);
  if (e.geo) rows.push(["  geo", `${e.geo.latitude} ${e.geo.longitude} (±${e.geo.accuracy} m)`]);
  if (e.media) rows.push(["  media", e.media]);
  if (e.offline) rows.push(["  offline", "on"]);
  if (e.headers) rows.push(["  headers", JSON.stringify(e.headers)]);
  if (e.userAgent) rows.push(["  useragent", e.userAgent]);
  if (e.timezone) rows.push(["  timezone", e.timezone]);
  if (e.locale) rows.push(["  locale", e.locale]);
  return rows;
}

export async function set(g: GlobalOptions, name: string | undefined, values: readonly string[], opts: { clear?: boolean; list?: boolean }): Promise<void> {
  const out = output(g);
  if (opts.list) {
    return out.result({ devices: DEVICES }, () => table([["DEVICE", "VIEWPORT", "SCALE", "MOBILE", "TOUCH"], ...DEVICES.map((d) => [d.name, `${d.width}x${d.height}`, String(d.deviceScaleFactor), d.mobile ? "yes" : "no", d.touch ? "yes" : "no"])]));
  }
  const root = stateRoot();
  const session = touchSession(await resolveSession(root, g.session), root);
  if (isCloud(session)) throw new ServiceInvalidArgumentError("svc set applies to a local session; a cloud session's browser is the platform's", { hint: "svc sessions start (local), or --session ID" });
  const store = sessionEmulationStore(session.id, root);
  if (name === undefined && !opts.clear) {
    if (values.length) throw new ServiceInvalidArgumentError("svc set: give a setting name first");
    const current = store.load();
    const rows = describe(current);
    return out.result({ session: session.id, emulation: current }, () => (rows.length ? [`session ${session.id} emulates:`, ...table(rows)] : [`session ${session.id} emulates nothing (svc set device|viewport|geo|media|offline|headers|useragent|timezone|locale …)`]));
  }
  let next: SessionEmulation;
  let what: string;
  if (opts.clear) {
    if (values.length) throw new ServiceInvalidArgumentError("svc set --clear takes at most a setting name");
    const field = name === undefined ? undefined : parseSetting(name, ["off"]).field;
    next = field === undefined ? {} : { ...store.load(), [field]: undefined };
    what = field === undefined ? "cleared every setting" : `cleared ${name!.toLowerCase()}`;
  } else {
    const { field, value } = parseSetting(name!, values);
    next = { ...store.load(), [field]: value };
    what = value === undefined ? `cleared ${name!.toLowerCase()}` : `set ${name!.toLowerCase()}`;
  }
  for (const k of Object.keys(next) as EmulationField[]) if (next[k] === undefined) delete next[k];
  store.save(next);
  const reply = await askHostFor<{ pages: number; failed: number; error?: string }>(root, session.id, { control: "emulation" }, savedWording(session.id));
  if (reply.failed > 0 && reply.pages === 0) throw new ServiceStateError(`saved for session ${session.id}, but no tab took it: ${reply.error ?? "unknown error"}`);
  const rows = describe(next);
  out.result({ session: session.id, emulation: next, applied: { tabs: reply.pages, failed: reply.failed } }, () => [
    `${what} for session ${session.id} (applied to ${reply.pages} tab${reply.pages === 1 ? "" : "s"}${reply.failed ? `; ${reply.failed} failed: ${reply.error}` : ""}; later tabs get it too)`,
    ...table(rows),
  ]);
}
