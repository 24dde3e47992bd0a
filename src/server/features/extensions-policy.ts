/**
 * What an uploaded extension may ask for on an isolated server (400 naming the permissions at upload). Refused, found
 * by behaviour: what beats the egress switches (`proxy`, `privacy`) or reaches the machine (`nativeMessaging`,
 * `downloads`, file systems). Allowed because Stagehand 4.x's extension needs them and file access is off:
 * `debugger`, `scripting`, `tabs`, `<all_urls>` … (docs/isolation.md).
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
