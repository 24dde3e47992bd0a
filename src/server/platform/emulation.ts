/**
 * A platform session's page settings from the official launch options (locale, deviceScaleFactor,
 * hasTouch, acceptDownloads), held over CDP for the session's lifetime (browser/emulation.ts).
 * `acceptDownloads: false` denies downloads; accepted ones go where every session's go, its own bounded
 * folder the recorder sets (features/recorder-feature.ts), so they are counted and deleted like any other.
 */
import { type LaunchedBrowser } from "../../index.js";
import { type BrowserEmulation, type HeldEmulation, holdEmulation } from "../../internal.js";
import { UpstreamError } from "../failures.js";

export async function holdSessionEmulation(browser: LaunchedBrowser, emulation: BrowserEmulation): Promise<HeldEmulation> {
  try {
    return await holdEmulation(browser.wsEndpoint, emulation);
  } catch {
    throw new UpstreamError("could not apply the launch options' page settings to the new browser");
  }
}
