/**
 * A platform session's page settings from the official launch options (locale, deviceScaleFactor,
 * hasTouch, acceptDownloads), held over CDP for the session's lifetime (browser/emulation.ts). Accepted
 * downloads land in `<downloadsDir>/<key fingerprint>/<random>`, one folder per session.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type BrowserEmulation, type HeldEmulation, holdEmulation, type LaunchedBrowser } from "../index.js";
import type { Owner } from "./auth.js";
import type { ServerConfig } from "./config.js";
import { HttpError } from "./http-error.js";

export async function holdSessionEmulation(browser: LaunchedBrowser, emulation: BrowserEmulation, config: ServerConfig, owner: Owner): Promise<HeldEmulation> {
  let downloads: string | undefined;
  if (emulation.acceptDownloads) {
    downloads = join(config.downloadsDir ?? join(dirname(config.cacheDir), "downloads"), owner, randomUUID());
    mkdirSync(downloads, { recursive: true, mode: 0o700 });
  }
  try {
    return await holdEmulation(browser.wsEndpoint, emulation, downloads);
  } catch {
    throw new HttpError(502, "could not apply the launch options' page settings to the new browser");
  }
}
