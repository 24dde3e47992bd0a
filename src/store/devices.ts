/**
 * The devices `svc set device NAME` (and the MCP `emulate` tool) know: Playwright's descriptors
 * (device-descriptors.ts, generated; the names people use with Playwright), then a few of svc's own that list
 * lacks. Names are matched without case, spaces, dashes or underscores.
 */
import { ServiceInvalidArgumentError } from "../errors.js";
import { PLAYWRIGHT_DEVICES } from "./device-descriptors.js";
import type { EmulatedDevice } from "./emulation.js";

const android = (model: string) => `Mozilla/5.0 (Linux; Android 14; ${model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36`;
const IPAD_UA = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const DESKTOP_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const MAC_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

/** svc's names Playwright's list has not (kept so earlier `svc set device` names still work). */
const SVC_DEVICES: readonly EmulatedDevice[] = [
  { name: "Galaxy S20", width: 360, height: 800, deviceScaleFactor: 3, mobile: true, touch: true, userAgent: android("SM-G981B") },
  { name: "iPad Pro", width: 1024, height: 1366, deviceScaleFactor: 2, mobile: true, touch: true, userAgent: IPAD_UA },
  { name: "Laptop", width: 1366, height: 768, deviceScaleFactor: 1, mobile: false, touch: false, userAgent: DESKTOP_UA },
  { name: "MacBook Pro", width: 1512, height: 982, deviceScaleFactor: 2, mobile: false, touch: false, userAgent: MAC_UA },
  { name: "Desktop HD", width: 1920, height: 1080, deviceScaleFactor: 1, mobile: false, touch: false, userAgent: DESKTOP_UA },
];

export const DEVICES: readonly EmulatedDevice[] = [...PLAYWRIGHT_DEVICES.map(({ defaultBrowserType: _, ...d }) => d), ...SVC_DEVICES];

const key = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");

/** The device of this name, or undefined. */
export function findDevice(name: string): EmulatedDevice | undefined {
  const k = key(name);
  return DEVICES.find((d) => key(d.name) === k);
}

/** Edit distance, bounded: enough to rank a handful of near names. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** Up to `max` known names nearest to `name` (landscape ones only when it asks for one). */
export function nearDevices(name: string, max = 5): string[] {
  const k = key(name.slice(0, 64));
  const scored = DEVICES.filter((d) => !/ landscape$/.test(d.name) || / landscape$/i.test(name.trim())).map((d) => {
    const dk = key(d.name);
    // A name that contains what was typed ("pixel" → the Pixels) ranks first, the shortest first.
    return { name: d.name, score: dk.includes(k) ? dk.length - k.length - 100 : distance(k, dk) };
  });
  return scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name)).slice(0, max).map((d) => d.name);
}

/** The device of this name; an unknown one is an INVALID_ARGUMENT naming `field` and the nearest names. */
export function deviceByName(field: string, name: string): EmulatedDevice {
  const device = findDevice(name);
  if (device) return device;
  throw new ServiceInvalidArgumentError(`${field}: unknown device ${JSON.stringify(name.slice(0, 60))}; near: ${nearDevices(name).join(", ")} (${DEVICES.length} known: svc set device --list)`);
}
