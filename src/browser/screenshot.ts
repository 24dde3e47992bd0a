/**
 * Screenshots bounded for a model, and "has the picture changed?". Chrome does the scaling (a `clip` with a `scale`), so
 * no image library is loaded. Chrome's scaled rendering of one page is not always byte-identical (gradients), its
 * full-size one is; so the fingerprint is the full-size bytes' hash, and only a changed page larger than the bound is
 * captured again, scaled.
 */
import { createHash } from "node:crypto";
import { ServiceDomProcessError, ServiceInvalidArgumentError } from "../errors.js";
import { SCREENSHOT_MAX_SIZE, maxSizeProblem } from "../util/screenshot-limits.js";
import type { Page } from "./page.js";

export { SCREENSHOT_MAX_SIZE };

export interface ScreenshotOptions {
  fullPage?: boolean;
  type?: "png" | "jpeg";
  /** JPEG quality, 0–100. */
  quality?: number;
  /** The picture's long side at most this many pixels, scaled down by Chrome (0: full size). */
  maxSize?: number;
}

export interface CaptureOptions extends ScreenshotOptions {
  /** Answer `{ unchanged: true }`, with no picture, when the tab's pixels equal its last screenshot's (same options). */
  ifChanged?: boolean;
}

/**
 * A picture, or that the page looks as at the tab's last screenshot. `scale`: image pixels per CSS pixel of the
 * page (so page px = image px / scale; the device pixel ratio when not shrunk); `scaled`: shrunk to fit maxSize.
 */
export type Capture = { unchanged: true } | Picture;
export interface Picture {
  unchanged: false;
  data: Buffer;
  width: number;
  height: number;
  scale: number;
  scaled: boolean;
}

/** A caller's bound on the long side (`field`: how the caller names it): 0, or a whole number in range. */
export function checkMaxSize(n: unknown, field: string): number {
  const problem = maxSizeProblem(n, field);
  if (problem) throw new ServiceInvalidArgumentError(problem);
  return n as number;
}

/** Width and height from a PNG's IHDR or a JPEG's start-of-frame marker. */
export function imageSize(data: Buffer): { width: number; height: number } {
  if (data.readUInt32BE(0) === 0x89504e47) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  for (let off = 2; off + 9 < data.length; off += 2 + data.readUInt16BE(off + 2)) {
    const marker = data[off + 1]!;
    // SOF0–SOF15, except DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { height: data.readUInt16BE(off + 5), width: data.readUInt16BE(off + 7) };
  }
  throw new ServiceDomProcessError("screenshot: Chrome's picture has no size header");
}

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The CSS pixels a screenshot covers: the visible part of the page, or all of it. */
async function region(page: Page, fullPage: boolean): Promise<Region> {
  const { cssContentSize, cssVisualViewport: v } = await page.mainSession.send("Page.getLayoutMetrics");
  if (fullPage) return { x: 0, y: 0, width: Math.ceil(cssContentSize.width), height: Math.ceil(cssContentSize.height) };
  return { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight };
}

async function devicePixelRatio(page: Page): Promise<number> {
  const r = Number(await page.evaluate("window.devicePixelRatio"));
  return Number.isFinite(r) && r > 0 ? r : 1;
}

/** How much Chrome shrinks a picture of `area` so its long side fits `maxSize` (1: not at all). */
function shrinkFor(area: Region, dpr: number, maxSize: number): number {
  const long = Math.max(area.width, area.height) * dpr;
  return maxSize > 0 && long > maxSize ? Math.floor((maxSize / long) * 1e6) / 1e6 : 1;
}

/**
 * Image px per CSS px of a viewport screenshot bounded by `maxSize` (as capture's `scale`, unrounded): how the
 * agent's coordinate tools map a point of the step's picture back to the page.
 */
export async function viewportScale(page: Page, maxSize: number = SCREENSHOT_MAX_SIZE.default): Promise<number> {
  const dpr = await devicePixelRatio(page);
  return shrinkFor(await region(page, false), dpr, maxSize) * dpr;
}

/**
 * Chrome paints only its window's front tab: a capture of a hidden one waits for a frame that never comes (a
 * session's `screenshot --tab N` of a background tab hung). Brought to the front, it paints; the door's selected
 * tab is brought back by its next command.
 */
async function showIfHidden(page: Page): Promise<void> {
  if ((await page.evaluate("document.visibilityState")) === "hidden") await page.mainSession.send("Page.bringToFront");
}

/**
 * One screenshot of `page`. `last`: the fingerprint of the tab's last screenshot, compared when `ifChanged`;
 * the answer carries this one's, for the caller to keep (a Page keeps its own; the CLI its session's file).
 */
export async function takeScreenshot(page: Page, options: CaptureOptions, last: string | undefined): Promise<{ capture: Capture; fingerprint: string }> {
  const type = options.type ?? "png";
  const maxSize = checkMaxSize(options.maxSize ?? SCREENSHOT_MAX_SIZE.default, "maxSize");
  const fullPage = options.fullPage === true;
  await showIfHidden(page);
  const area = await region(page, fullPage);
  const shoot = async (scale: number, clip: boolean) => {
    const { data } = await page.mainSession.send("Page.captureScreenshot", {
      format: type,
      ...(type === "jpeg" && options.quality !== undefined ? { quality: options.quality } : {}),
      ...(clip ? { clip: { ...area, scale }, ...(fullPage ? { captureBeyondViewport: true } : {}) } : {}),
    });
    return Buffer.from(data, "base64");
  };
  const full = await shoot(1, fullPage);
  const key = JSON.stringify({ fullPage, type, quality: options.quality ?? null, maxSize });
  const fingerprint = createHash("sha256").update(key).update(full).digest("hex");
  if (options.ifChanged && fingerprint === last) return { capture: { unchanged: true }, fingerprint };
  const dpr = await devicePixelRatio(page);
  const shrink = shrinkFor(area, dpr, maxSize);
  const data = shrink < 1 ? await shoot(shrink, true) : full;
  const { width, height } = imageSize(data);
  return { capture: { unchanged: false, data, width, height, scale: Math.round(shrink * dpr * 1e4) / 1e4, scaled: shrink < 1 }, fingerprint };
}
