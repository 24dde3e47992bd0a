/**
 * The devices `svc set device NAME` (and the MCP `emulate` tool) know: CSS viewport, device scale factor, mobile, touch and user agent,
 * as the browsers' own device toolbars describe them. Names are matched without case, spaces or dashes.
 */
import type { EmulatedDevice } from "./emulation.js";

const IPHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD_UA = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const android = (model: string) => `Mozilla/5.0 (Linux; Android 14; ${model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36`;
const DESKTOP_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const MAC_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

export const DEVICES: readonly EmulatedDevice[] = [
  { name: "iPhone SE", width: 375, height: 667, deviceScaleFactor: 2, mobile: true, touch: true, userAgent: IPHONE_UA },
  { name: "iPhone 14", width: 390, height: 844, deviceScaleFactor: 3, mobile: true, touch: true, userAgent: IPHONE_UA },
  { name: "iPhone 14 Pro Max", width: 430, height: 932, deviceScaleFactor: 3, mobile: true, touch: true, userAgent: IPHONE_UA },
  { name: "Pixel 7", width: 412, height: 915, deviceScaleFactor: 2.625, mobile: true, touch: true, userAgent: android("Pixel 7") },
  { name: "Galaxy S20", width: 360, height: 800, deviceScaleFactor: 3, mobile: true, touch: true, userAgent: android("SM-G981B") },
  { name: "Galaxy Tab S4", width: 712, height: 1138, deviceScaleFactor: 2.25, mobile: true, touch: true, userAgent: android("SM-T837A").replace(" Mobile ", " ") },
  { name: "iPad Mini", width: 768, height: 1024, deviceScaleFactor: 2, mobile: true, touch: true, userAgent: IPAD_UA },
  { name: "iPad Pro", width: 1024, height: 1366, deviceScaleFactor: 2, mobile: true, touch: true, userAgent: IPAD_UA },
  { name: "Laptop", width: 1366, height: 768, deviceScaleFactor: 1, mobile: false, touch: false, userAgent: DESKTOP_UA },
  { name: "MacBook Pro", width: 1512, height: 982, deviceScaleFactor: 2, mobile: false, touch: false, userAgent: MAC_UA },
  { name: "Desktop HD", width: 1920, height: 1080, deviceScaleFactor: 1, mobile: false, touch: false, userAgent: DESKTOP_UA },
];

const key = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");

/** The device of this name, or undefined. */
export function findDevice(name: string): EmulatedDevice | undefined {
  return DEVICES.find((d) => key(d.name) === key(name));
}
