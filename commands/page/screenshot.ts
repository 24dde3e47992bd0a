/**
 * `svc screenshot` (docs/cli.md): written atomically, never half a file; without `-o` to `screenshot-<UTC time>.png`
 * here, the path printed either way. The long side is bounded by the library's takeScreenshot (`--max-size`), and the
 * tab's fingerprint kept in the session's state for `--if-changed`. `--annotate`: screenshot-annotate.ts.
 */
import { ServiceInvalidArgumentError, sessionScreenshotStore } from "../../src/base.js";
import { SCREENSHOT_MAX_SIZE, checkMaxSize, takeScreenshot } from "../../src/internal.js";
import type { GlobalOptions } from "../core/output.js";
import { type LaunchFlags, type RunContext, checkUrl, withLiveOrOneShot, withSession } from "../core/runtime.js";
import { checkOutputPath, writeOutputFile } from "../core/output-file.js";
import { withAnnotations } from "./screenshot-annotate.js";

export interface ScreenshotOptions extends LaunchFlags {
  /** A browser of its own for this command, even when a session is live. */
  new?: boolean;
  output?: string;
  fullPage?: boolean;
  format?: string;
  quality?: string;
  annotate?: boolean;
  maxSize?: string;
  ifChanged?: boolean;
}

/** JPEG quality when --quality is not given. */
const DEFAULT_JPEG_QUALITY = 80;

/** The picture's format (--format, else the -o file's extension) and JPEG quality, checked before any work. */
export function pictureFormat(opts: Pick<ScreenshotOptions, "format" | "quality" | "output">): { type: "png" | "jpeg"; quality?: number } {
  const type = opts.format === "jpeg" || (opts.format === undefined && /\.jpe?g$/i.test(opts.output ?? "")) ? "jpeg" : "png";
  if (opts.quality === undefined) return type === "jpeg" ? { type, quality: DEFAULT_JPEG_QUALITY } : { type };
  if (type !== "jpeg") throw new ServiceInvalidArgumentError("--quality applies to --format jpeg", { hint: "svc screenshot --format jpeg --quality 60" });
  const n = Number(opts.quality);
  if (!opts.quality.trim() || !Number.isInteger(n) || n < 0 || n > 100) throw new ServiceInvalidArgumentError(`--quality must be a whole number from 0 to 100, got "${opts.quality}"`);
  return { type, quality: n };
}

/** --max-size as a number, checked by the library's rule before any work. */
function maxSizeFlag(raw: string | undefined): number {
  if (raw === undefined) return SCREENSHOT_MAX_SIZE.default;
  return checkMaxSize(raw.trim() && /^\d+$/.test(raw.trim()) ? Number(raw) : raw, "--max-size");
}

export async function screenshot(g: GlobalOptions, rawUrl: string | undefined, opts: ScreenshotOptions): Promise<void> {
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const format = pictureFormat(opts);
  const maxSize = maxSizeFlag(opts.maxSize);
  const path = checkOutputPath(opts.output ?? defaultScreenshotName(format.type));
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const shots = session ? sessionScreenshotStore(session.id) : undefined;
    const capture = async () => {
      const { capture: shot, fingerprint } = await takeScreenshot(page, { fullPage: !!opts.fullPage, ...format, maxSize, ifChanged: !!opts.ifChanged }, shots?.load(page.targetId));
      shots?.save(page.targetId, fingerprint);
      return shot;
    };
    const shot = opts.annotate ? await withAnnotations(page, session, capture) : { result: await capture() };
    const pic = shot.result;
    if (pic.unchanged) return out.result({ unchanged: true }, () => "unchanged");
    writeOutputFile(path, pic.data);
    const refs = "drawn" in shot ? { annotated: shot.drawn, ...(shot.skipped.length ? { notDrawn: shot.skipped } : {}) } : {};
    const size = { width: pic.width, height: pic.height, scale: pic.scale };
    out.result({ ...(session ? { session: session.id } : {}), url: page.url(), path, format: format.type, bytes: pic.data.length, ...size, ...refs }, () => (pic.scaled ? [path, `scaled to ${pic.width}×${pic.height} px, scale ${pic.scale} (page px = image px / ${pic.scale})`] : path));
  };
  if (url !== undefined) await withLiveOrOneShot(g, opts, run);
  else await withSession(g, run);
}

/** `screenshot-20261124-180503-123.png`: sortable, no characters a shell or Windows would mind. */
function defaultScreenshotName(ext: string, now = new Date()): string {
  const iso = now.toISOString(); // 2026-11-24T18:05:03.123Z
  return `screenshot-${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${iso.slice(20, 23)}.${ext}`;
}
