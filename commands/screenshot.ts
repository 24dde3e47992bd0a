/**
 * `svc screenshot [URL] [-o file] [--full-page] [--format png|jpeg] [--quality N] [--annotate]`: written
 * atomically, never a half-written file. Without `-o`: `screenshot-<UTC time>.png` (or `.jpeg`) in the
 * current folder; the path is printed either way. `--annotate`: screenshot-annotate.ts.
 */
import { ServiceInvalidArgumentError } from "../src/base.js";
import type { GlobalOptions } from "./output.js";
import { type LaunchFlags, type RunContext, checkUrl, withLiveOrOneShot, withSession } from "./runtime.js";
import { checkOutputPath, writeOutputFile } from "./output-file.js";
import { withAnnotations } from "./screenshot-annotate.js";

export interface ScreenshotOptions extends LaunchFlags {
  /** A browser of its own for this command, even when a session is live. */
  new?: boolean;
  output?: string;
  fullPage?: boolean;
  format?: string;
  quality?: string;
  annotate?: boolean;
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

export async function screenshot(g: GlobalOptions, rawUrl: string | undefined, opts: ScreenshotOptions): Promise<void> {
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const format = pictureFormat(opts);
  const path = checkOutputPath(opts.output ?? defaultScreenshotName(format.type));
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const capture = () => page.screenshot({ fullPage: !!opts.fullPage, ...format });
    const shot = opts.annotate ? await withAnnotations(page, session, capture) : { result: await capture() };
    const data = shot.result;
    writeOutputFile(path, data);
    const refs = "drawn" in shot ? { annotated: shot.drawn, ...(shot.skipped.length ? { notDrawn: shot.skipped } : {}) } : {};
    out.result({ ...(session ? { session: session.id } : {}), url: page.url(), path, format: format.type, bytes: data.length, ...refs }, () => path);
  };
  if (url !== undefined) await withLiveOrOneShot(g, opts, run);
  else await withSession(g, run);
}

/** `screenshot-20261124-180503-123.png`: sortable, no characters a shell or Windows would mind. */
function defaultScreenshotName(ext: string, now = new Date()): string {
  const iso = now.toISOString(); // 2026-11-24T18:05:03.123Z
  return `screenshot-${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${iso.slice(20, 23)}.${ext}`;
}
