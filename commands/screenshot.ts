/** `svc screenshot [URL] -o file.png [--full-page]`: written atomically, never a half-written file. */
import { randomBytes } from "node:crypto";
import { accessSync, constants, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ServiceInvalidArgumentError } from "../src/errors.js";
import type { GlobalOptions } from "./output.js";
import { type LaunchFlags, type RunContext, checkUrl, withOneShot, withSession } from "./runtime.js";

export interface ScreenshotOptions extends LaunchFlags {
  output: string;
  fullPage?: boolean;
}

/** Fail before taking the screenshot when the file could not be written anyway. */
function checkOutputPath(file: string): string {
  const path = resolve(file);
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.W_OK);
  } catch {
    throw new ServiceInvalidArgumentError(`cannot write ${file}: directory ${dir} does not exist or is not writable`);
  }
  try {
    if (statSync(path).isDirectory()) throw new ServiceInvalidArgumentError(`cannot write ${file}: it is a directory`);
  } catch (e) {
    if (e instanceof ServiceInvalidArgumentError) throw e;
  }
  return path;
}

export function writeAtomic(path: string, data: Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(tmp, data, { flag: "wx", mode: 0o644 });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new ServiceInvalidArgumentError(`cannot write ${path}: ${(e as Error).message}`);
  }
}

export async function screenshot(g: GlobalOptions, rawUrl: string | undefined, opts: ScreenshotOptions): Promise<void> {
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const path = checkOutputPath(opts.output);
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const png = await page.screenshot({ fullPage: !!opts.fullPage });
    writeAtomic(path, png);
    out.result({ ...(session ? { session: session.id } : {}), url: page.url(), path, bytes: png.length }, () => path);
  };
  if (url !== undefined && g.session === undefined) await withOneShot(g, opts, run);
  else await withSession(g, run);
}
