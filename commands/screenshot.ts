/**
 * `svc screenshot [URL] [-o file.png] [--full-page]`: written atomically, never a half-written file.
 * Without `-o`: `screenshot-<UTC time>.png` in the current folder; the path is printed either way.
 */
import type { GlobalOptions } from "./output.js";
import { type LaunchFlags, type RunContext, checkUrl, withLiveOrOneShot, withSession } from "./runtime.js";
import { checkOutputPath, writeOutputFile } from "./output-file.js";

export interface ScreenshotOptions extends LaunchFlags {
  /** A browser of its own for this command, even when a session is live. */
  new?: boolean;
  output?: string;
  fullPage?: boolean;
}

export async function screenshot(g: GlobalOptions, rawUrl: string | undefined, opts: ScreenshotOptions): Promise<void> {
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const path = checkOutputPath(opts.output ?? defaultScreenshotName());
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const png = await page.screenshot({ fullPage: !!opts.fullPage });
    writeOutputFile(path, png);
    out.result({ ...(session ? { session: session.id } : {}), url: page.url(), path, bytes: png.length }, () => path);
  };
  if (url !== undefined) await withLiveOrOneShot(g, opts, run);
  else await withSession(g, run);
}

/** `screenshot-20261124-180503-123.png`: sortable, no characters a shell or Windows would mind. */
function defaultScreenshotName(now = new Date()): string {
  const iso = now.toISOString(); // 2026-11-24T18:05:03.123Z
  return `screenshot-${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${iso.slice(20, 23)}.png`;
}
