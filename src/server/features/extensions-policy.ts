/**
 * What an uploaded extension may ask for on a server that isolates its tenants (checked at upload: 400
 * naming the permissions). Found by behaviour on Chromium 156 with test extensions:
 * - `proxy`: chrome.proxy.settings.set({mode: "direct"}) beats `--proxy-server` (an extension's setting
 *   wins over the command line): the browser's requests skip the egress proxy and reach loopback.
 * - `privacy`: chrome.privacy.network.webRTCIPHandlingPolicy beats `--webrtc-ip-handling-policy`: WebRTC's
 *   UDP goes around the proxy again.
 * - `nativeMessaging`: starts programs of the server's machine (any host manifest installed there).
 * - `downloads` (and its `.open`/`.ui`/`.shelf` parts): writes files to the server's disk and opens them.
 * - `fileSystemProvider`, `fileBrowserHandler`: file systems of the machine (ChromeOS today; refused anyway).
 * Allowed, because Stagehand 4.x's own extension needs them and they were checked: `debugger` (cannot
 * attach to chrome:// pages or other extensions; with file access off — features/extensions.ts — cannot navigate
 * to file:// or set file inputs), `scripting`, `tabs`, `offscreen`, `declarativeNetRequest`, `<all_urls>`
 * (file:// is out of reach with file access off; the network goes through the egress proxy).
 */
import type { ExtensionManifest } from "./extensions-zip.js";
import { ServiceInvalidArgumentError } from "../../index.js";

const REFUSED = new Map<string, string>([
  ["proxy", "it would route the browser around the server's egress proxy"],
  ["privacy", "it would re-enable WebRTC's UDP around the egress proxy"],
  ["nativeMessaging", "it starts programs on the server"],
  ["downloads", "it writes and opens files on the server"],
  ["downloads.open", "it opens files on the server"],
  ["downloads.ui", "it writes files on the server"],
  ["downloads.shelf", "it writes files on the server"],
  ["fileSystemProvider", "it reaches the machine's file systems"],
  ["fileBrowserHandler", "it reaches the machine's file systems"],
]);

/** The manifest's refused permissions (in `permissions` or `optional_permissions`), as a 400; nothing when all pass. */
export function checkIsolatedManifest(manifest: ExtensionManifest): void {
  const asked = [manifest.permissions, manifest.optional_permissions].flatMap((list) => (Array.isArray(list) ? list : []));
  const refused = [...new Set(asked.filter((p): p is string => typeof p === "string" && REFUSED.has(p)))];
  if (!refused.length) return;
  const why = refused.map((p) => `${p} (${REFUSED.get(p)})`).join(", ");
  throw new ServiceInvalidArgumentError(`file: manifest.json asks for permissions this server refuses to isolated tenants: ${why}`);
}
