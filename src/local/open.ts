/** env LOCAL: launch Chrome (or attach to `cdpUrl`) and drive it from this process. */
import { randomUUID } from "node:crypto";
import type { BackendSetup } from "../backend.js";
import { openBrowser } from "../browser/connect.js";
import { LocalBackend } from "./backend.js";


export async function openLocalBackend(setup: BackendSetup): Promise<LocalBackend> {
  const { opts, log } = setup;
  log.info("init", "starting browser", { headless: opts.launch.headless ?? true, attach: Boolean(opts.launch.cdpUrl) });
  const browser = await openBrowser({ ...opts.launch, domSettleTimeout: opts.domSettleTimeout, webUrlsOnly: opts.raw.webUrlsOnly, dialogPolicy: opts.dialogPolicy });
  const port = browser.launched?.port ?? new URL(browser.wsEndpoint).port;
  const init = { sessionId: randomUUID(), sessionUrl: browser.wsEndpoint, debugUrl: `http://127.0.0.1:${port}/json` };
  return new LocalBackend({ ...setup, browser, init });
}
