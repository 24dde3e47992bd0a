/** env LOCAL: launch Chrome (or attach to `cdpUrl`) and drive it from this process. */
import { randomUUID } from "node:crypto";
import type { BackendSetup } from "../backend.js";
import { openBrowser } from "../browser/connect.js";
import { LocalBackend } from "./backend.js";


export async function openLocalBackend(setup: BackendSetup): Promise<LocalBackend> {
  const { opts, log } = setup;
  log.info("init", "starting browser", { headless: opts.launch.headless ?? true, attach: Boolean(opts.launch.cdpUrl) });
  const browser = await openBrowser({ ...opts.launch, domSettleTimeout: opts.domSettleTimeout, urlPolicy: opts.raw.urlPolicy, dialogPolicy: opts.dialogPolicy, tabScope: opts.raw.tabScope });
  const init = { sessionId: randomUUID(), sessionUrl: browser.wsEndpoint, debugUrl: debugUrl(browser.wsEndpoint, browser.launched?.socketPath) };
  return new LocalBackend({ ...setup, browser, init });
}

/**
 * Where the DevTools target list is: a launched Chrome's is on its unix socket (`curl --unix-socket <path>
 * http://localhost/json`), written `http+unix://<path>:/json`; an attached one's is on the host it came from.
 */
function debugUrl(wsEndpoint: string, socketPath: string | undefined): string {
  if (socketPath) return `http+unix://${socketPath}:/json`;
  const u = new URL(wsEndpoint);
  return `${u.protocol === "wss:" ? "https" : "http"}://${u.host}/json`;
}
