/**
 * What the tabs emulate (device, viewport, location, colour scheme, offline, headers, user agent, time zone, locale),
 * for later tabs too: `emulate` (the CLI's `svc set`); and `resize`, MCP's size of the current tab alone. Each door
 * keeps the settings its own way (`ctx.emulation()`); the checks and the report are here.
 */
import { z } from "zod";
import type { SessionEmulation } from "../internal.js";
import { ServiceInvalidArgumentError, ServiceStateError } from "../errors.js";
import { type Capability, capability, type EmulationDoor, moves, type Report } from "./declare.js";

/** The words `svc set` takes, and the property each sets. */
const WORDS = { device: "device", viewport: "viewport", geo: "geo", media: "media", offline: "offline", headers: "headers", useragent: "userAgent", timezone: "timezone", locale: "locale" } as const;
type Setting = (typeof WORDS)[keyof typeof WORDS];
const SETTINGS = Object.values(WORDS);

/** What each word's values look like, for its errors. */
const USAGE: Record<Setting, string> = {
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

/** A header JSON longer than this is refused before it is parsed. */
const MAX_HEADERS_JSON = 20_000;

/** One setting's words as its property's value (null: `off`, unset it); the store's checks come after, in run. */
function settingValue(word: string, property: Setting, values: readonly string[]): unknown {
  const joined = values.join(" ");
  if (!joined.trim()) throw new ServiceInvalidArgumentError(`svc set ${word}: missing value, expected ${USAGE[property]} (or off)`);
  if (joined === "off" && property !== "offline") return null;
  const one = () => {
    if (values.length !== 1) throw new ServiceInvalidArgumentError(`invalid ${word}: expected ${USAGE[property]}, got ${values.length} values`);
    return values[0]!;
  };
  const bad = (why: string) => new ServiceInvalidArgumentError(`invalid ${word}: ${why}`);
  switch (property) {
    case "viewport": {
      const m = /^(\d{1,5})x(\d{1,5})$/.exec(one());
      if (!m) throw bad(`expected WxH, e.g. 390x844, got ${JSON.stringify(values[0]!.slice(0, 40))}`);
      return { width: Number(m[1]), height: Number(m[2]) };
    }
    case "geo": {
      if (values.length < 2 || values.length > 3 || values.some((v) => !/^-?\d+(\.\d+)?$/.test(v))) throw bad(`expected ${USAGE.geo}`);
      const [latitude, longitude, accuracy] = values.map(Number);
      return { latitude, longitude, ...(accuracy !== undefined ? { accuracy } : {}) };
    }
    case "media": {
      const v = one();
      if (v !== "dark" && v !== "light") throw bad(`expected dark, light or off, got ${JSON.stringify(v.slice(0, 40))}`);
      return v;
    }
    case "offline": {
      const v = one();
      if (v !== "on" && v !== "off") throw bad(`expected on or off, got ${JSON.stringify(v.slice(0, 40))}`);
      return v === "on";
    }
    case "headers":
      try {
        return JSON.parse(joined.length > MAX_HEADERS_JSON ? "" : joined) as unknown;
      } catch {
        throw bad(`expected a JSON object (at most ${MAX_HEADERS_JSON} characters), e.g. '{"X-Test":"1"}'`);
      }
    case "timezone":
    case "locale":
      return one();
    default:
      return joined;
  }
}

/** `svc set`'s words: `NAME VALUES…` one setting, `NAME off` or `NAME --clear` unsets it, `--clear` alone all, nothing: show. */
function setWords(args: readonly string[], flags: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const [word, ...values] = args;
  if (flags.list) return {};
  if (word === undefined) return flags.clear ? { reset: true } : {};
  const property = WORDS[word.toLowerCase() as keyof typeof WORDS] as Setting | undefined;
  if (!property) throw new ServiceInvalidArgumentError(`unknown setting ${JSON.stringify(word.slice(0, 40))}: use one of ${Object.keys(WORDS).join(", ")}`);
  if (!flags.clear) return { [property]: settingValue(word.toLowerCase(), property, values) };
  if (values.length) throw new ServiceInvalidArgumentError("svc set --clear takes at most a setting name");
  return { [property]: property === "offline" ? false : null };
}

/** What the page reports of the settings: read after they are applied. */
const PAGE_VIEW = `({ screen: screen.width + "x" + screen.height, viewport: innerWidth + "x" + innerHeight, scale: devicePixelRatio, touch: navigator.maxTouchPoints > 0, userAgent: navigator.userAgent,
  language: navigator.language, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, dark: matchMedia("(prefers-color-scheme: dark)").matches, online: navigator.onLine })`;

/** One line per setting, labelled with the CLI's word. */
function rows(e: SessionEmulation): string[] {
  const d = e.device;
  const shown: [string, string | undefined][] = [
    ["device", d && `${d.name} (${d.width}x${d.height} @${d.deviceScaleFactor}x${d.mobile ? ", mobile" : ""}${d.touch ? ", touch" : ""})`],
    ["viewport", e.viewport && `${e.viewport.width}x${e.viewport.height}`],
    ["geo", e.geo && `${e.geo.latitude} ${e.geo.longitude} (±${e.geo.accuracy} m)`],
    ["media", e.media],
    ["offline", e.offline ? "on" : undefined],
    ["headers", e.headers && JSON.stringify(e.headers)],
    ["useragent", e.userAgent],
    ["timezone", e.timezone],
    ["locale", e.locale],
  ];
  return shown.filter((r): r is [string, string] => r[1] !== undefined).map(([k, v]) => `  ${k.padEnd(10)} ${v}`);
}

type Applied = Awaited<ReturnType<EmulationDoor["set"]>>;

/** The door's settings changed by `change` (given the current ones), checked by the store's rules and applied to every tab. */
async function applyChange(door: EmulationDoor, change: (current: Record<string, unknown>) => Record<string, unknown>): Promise<Applied> {
  const { checkEmulation } = await import("../internal.js");
  const applied = await door.set(checkEmulation(change({ ...door.current() })));
  if (applied.failed > 0 && applied.pages === 0) throw new ServiceStateError(`saved for ${door.scope}, but no tab took it: ${applied.error ?? "unknown error"}`);
  return applied;
}

/** The settings now, what the call changed, and what the selected tab reports of them (read from it). */
async function report(door: EmulationDoor, applied: Applied | undefined, what: string | undefined): Promise<Report> {
  const now = door.current();
  const names = Object.keys(now);
  const tabs = applied ? ` in ${applied.pages} tab${applied.pages === 1 ? "" : "s"}${applied.failed ? ` (${applied.failed} failed: ${applied.error})` : ""}` : ` (${door.scope})`;
  const lines = [`${names.length ? `emulating ${names.join(", ")}` : "emulating nothing"}${tabs}`, ...rows(now)];
  if (what) lines.push(`${what} for ${door.scope}, applied to later tabs too`);
  const page = door.tab ? await (await door.tab()).evaluate<Record<string, unknown>>(PAGE_VIEW).then((seen) => ({ seen }), (e: unknown) => ({ error: (e as Error).message })) : undefined;
  if (page) lines.push("seen" in page ? `the current tab reports: ${JSON.stringify(page.seen)}` : `the current tab could not be read: ${page.error}`);
  const data = { emulation: now, ...(applied ? { applied: { tabs: applied.pages, failed: applied.failed } } : {}), ...(page && "seen" in page ? { page: page.seen } : {}) };
  return { kind: "report", text: lines.join("\n"), data };
}

/** Rows of cells as aligned columns. */
function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n");
}

/** The devices `device` takes, as a table (`--json`: every field). */
async function deviceList(): Promise<Report> {
  const { DEVICES } = await import("../internal.js");
  const rows = DEVICES.map((d) => [d.name, `${d.width}x${d.height}`, String(d.deviceScaleFactor), d.mobile ? "yes" : "no", d.touch ? "yes" : "no"]);
  return { kind: "report", text: columns([["DEVICE", "VIEWPORT", "SCALE", "MOBILE", "TOUCH"], ...rows]), data: { devices: DEVICES } };
}

export const emulate = capability({
  name: "emulate",
  description: "Emulate a device, viewport, location, colour scheme, offline, headers, UA, time zone, locale",
  input: {
    device: z.string().min(1).max(64).nullable().optional().describe("a device by Playwright's name (its device list): iPhone 15 Pro, iPhone 13, Pixel 7, Galaxy S24, iPad Mini, Desktop Chrome…"),
    viewport: z.object({ width: z.number().int(), height: z.number().int() }).nullable().optional().describe("the viewport in CSS pixels (wins over the device's size)"),
    geo: z.object({ latitude: z.number(), longitude: z.number(), accuracy: z.number().optional() }).nullable().optional().describe("the position the page's geolocation reports (permission granted)"),
    media: z.enum(["dark", "light"]).nullable().optional().describe("prefers-color-scheme"),
    offline: z.boolean().optional().describe("true: every request of the tabs fails as offline"),
    headers: z.record(z.string(), z.string()).nullable().optional().describe("extra HTTP headers sent with every request"),
    userAgent: z.string().min(1).max(1024).nullable().optional().describe("the user agent (wins over the device's)"),
    timezone: z.string().min(1).max(64).nullable().optional().describe("an IANA time zone, e.g. Europe/Berlin"),
    locale: z.string().min(1).max(35).nullable().optional().describe("a language tag, e.g. de-DE: navigator.language, Intl and Accept-Language"),
    reset: z.boolean().optional().describe("clear every setting first (null clears one); kept for every tab, later ones too, until changed"),
    clear: z.boolean().optional().describe("unset every setting (or, after a setting's name, that one)"),
    list: z.boolean().optional().describe("list the devices `device` takes, by name (changes nothing)"),
  },
  only: {
    reset: { door: "mcp", why: "the CLI says --clear, which also unsets the one setting named before it" },
    clear: { door: "cli", why: "read by the verb's word parser: alone it is reset, after a setting's name that setting's null" },
  },
  mcp: { cap: "emulation", annotations: moves("Emulate", true) },
  cli: {
    verb: "set",
    args: "[setting] [values...]",
    usage: "[device NAME | viewport WxH | geo LAT LON | media dark|light | offline on|off | headers JSON | useragent UA | timezone TZ | locale L] [--clear]",
    positional: setWords,
    fills: SETTINGS,
    description: "emulate a device, viewport, location, color scheme, offline, headers, user agent, time zone or locale on every tab of the session (later tabs too); alone: show what is set; `svc set X off` unsets one",
    examples: [
      "svc set device 'iPhone 14'",
      "svc set viewport 390x844",
      "svc set geo 52.52 13.405",
      "svc set media dark",
      "svc set offline on",
      `svc set headers '{"X-Test":"1"}'`,
      "svc set useragent 'Mozilla/5.0 (svc test)'",
      "svc set timezone Europe/Berlin",
      "svc set locale de-DE",
      "svc set viewport off",
      "svc set --clear",
      "svc set",
    ],
    hosted: true,
  },
  needs: "session",
  // The device table is the declaration's own: listing it needs no browser, on either door.
  withoutBrowser: (i) => (i.list ? deviceList() : undefined),
  run: async (ctx, i) => {
    const door = await ctx.emulation();
    const given = SETTINGS.filter((k) => i[k] !== undefined);
    if (!i.reset && given.length === 0) return report(door, undefined, undefined);
    const { deviceByName } = await import("../internal.js");
    const applied = await applyChange(door, (current) => {
      const next = i.reset ? {} : current;
      for (const k of given) {
        const v = i[k];
        if (v === null || v === false) delete next[k];
        else next[k] = k === "device" ? deviceByName("invalid device", v as string) : v;
      }
      return next;
    });
    const cleared = given.filter((k) => i[k] === null || i[k] === false);
    const set = given.filter((k) => !cleared.includes(k));
    const what = [i.reset ? "cleared every setting" : "", cleared.length ? `cleared ${cleared.join(", ")}` : "", set.length ? `set ${set.join(", ")}` : ""].filter(Boolean).join("; ");
    return report(door, applied, what);
  },
});

/** The current tab's size alone, as its own override (emulate's viewport is every tab's, kept for later ones). */
export const resize = capability({
  name: "resize",
  description: "Resize the current tab's viewport",
  input: { width: z.number().int().min(100).max(10_000).describe("CSS pixels"), height: z.number().int().min(100).max(10_000).describe("CSS pixels") },
  mcp: { cap: "tabs", annotations: moves("Resize the viewport", true) },
  run: async (ctx, i) => {
    const page = await ctx.page();
    await page.mainSession.send("Emulation.setDeviceMetricsOverride", { width: i.width, height: i.height, deviceScaleFactor: 0, mobile: false });
    const seen = await page.evaluate<{ w: number; h: number }>("({ w: window.innerWidth, h: window.innerHeight })");
    return { kind: "report", text: `viewport ${seen.w}x${seen.h}`, data: { viewport: { width: seen.w, height: seen.h } } };
  },
});

export const EMULATION_CAPABILITIES: readonly Capability[] = [emulate, resize] as readonly Capability[];
