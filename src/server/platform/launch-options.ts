/**
 * The exact options a platform session's Chrome is launched with (the warm pool matches on them): the
 * server's (or a session-API start's) launch options without browser origins, a cdpUrl or any DevTools
 * TCP port (Chrome is reached over its pipe only, through a 0600 unix socket), the session's viewport as the content size, and on an isolated server the egress proxy's switches.
 */
import type { LocalBrowserLaunchOptions, Viewport } from "../../index.js";
import type { ServerConfig } from "../config.js";
import { withoutBrowserOrigins } from "./devtools-origin.js";
import { type EgressProxy, isolationArgs } from "../isolation/egress-proxy.js";

/** Switches that would open a DevTools TCP port. */
const TCP_DEVTOOLS = /^--?remote-debugging-(port|address)(=|$)/i;

export function sessionLaunchOptions(
  config: ServerConfig,
  egress: EgressProxy | undefined,
  base: LocalBrowserLaunchOptions,
  viewport: Viewport,
  p: { ignoreCertificateErrors?: boolean | undefined },
): LocalBrowserLaunchOptions {
  const { cdpUrl: _ignored, port: _noPort, ...launchOptions } = withoutBrowserOrigins(base);
  // No tenant's Chrome listens on TCP: whatever port an operator's or a session start's options name.
  const args = (launchOptions.args ?? []).filter((a) => !TCP_DEVTOOLS.test(a));
  return {
    ...launchOptions,
    viewport,
    args: isolationArgs(config, egress, [...args, ...contentSizeArgs(viewport, launchOptions.headless ?? true)]),
    ...(p.ignoreCertificateErrors ? { ignoreHTTPSErrors: true } : {}),
  };
}

/**
 * A headless --window-size includes an invisible tab strip and toolbar, so pages got about 140 px less height than
 * asked. A kiosk window on a headless screen of exactly the viewport gives every tab that content size, as CDP
 * clients expect of `browserSettings.viewport`. A headed window keeps the user's screen.
 */
function contentSizeArgs(viewport: Viewport, headless: boolean): string[] {
  return headless ? ["--kiosk", `--screen-info={${viewport.width}x${viewport.height}}`] : [];
}

