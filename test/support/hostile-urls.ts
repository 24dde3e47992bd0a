/**
 * The one table of hostile URLs every door that opens a page is tested against (test/*\/urls-*.test.ts and
 * test/cli/mcp-urls.test.ts): each row, and the URL policies (src/util/url-policy.ts) that let it through. A door
 * applies one policy; every row that policy refuses gets the same answer on every door — INVALID_ARGUMENT with
 * `refusal(policy, row)`'s words — and the tab stays where it was.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { UrlPolicy } from "../../src/util/url-policy.js";

/** A local file only a `file:` row may reach: `secret.txt` in `dir`, holding a fresh secret, and its URL. */
export function secretFile(dir: string): { secret: string; secretUrl: string } {
  const secret = `svc-secret-${randomBytes(8).toString("hex")}`;
  const file = join(dir, "secret.txt");
  writeFileSync(file, `${secret}\n`);
  return { secret, secretUrl: pathToFileURL(file).href };
}

export interface HostileUrl {
  url: string;
  /** The scheme the refusal names. */
  got: string;
  /** The policies that open it (every other one refuses it). */
  opens: readonly UrlPolicy[];
}

/**
 * The rows: `secretUrl` is a file: URL of a file holding `secret`, `page` a web page of the test's fixture server
 * (view-source: of it is Chrome's own page all the same).
 */
export function hostileUrls(o: { secretUrl: string; secret: string; page: string }): HostileUrl[] {
  return [
    { url: o.secretUrl, got: "file:", opens: ["any", "http+file"] },
    { url: `view-source:${o.secretUrl}`, got: "view-source:", opens: [] },
    { url: `view-source:${o.page}`, got: "view-source:", opens: [] },
    { url: "chrome://version", got: "chrome:", opens: [] },
    { url: "chrome://settings/", got: "chrome:", opens: [] },
    { url: "devtools://devtools/bundled/inspector.html", got: "devtools:", opens: [] },
    { url: "about:version", got: "about:version", opens: [] },
    { url: `data:text/html,<p>${o.secret}</p>`, got: "data:", opens: ["any", "web"] },
    { url: `javascript:document.body.textContent='${o.secret}'`, got: "javascript:", opens: [] },
    { url: `JavaScript:void(document.title='${o.secret}')`, got: "javascript:", opens: [] },
  ];
}

/** What each policy's refusal says it opens (written out here, not read from src: the test states the words). */
const SAYS: Record<UrlPolicy, string> = {
  any: "http, https, file, data and about:blank",
  web: "http, https, data and about:blank",
  http: "http and https",
  "http+file": "http, https and file",
};

/** The one line every door answers a refused row with (the code, then the message). */
export function refusal(policy: UrlPolicy, row: HostileUrl): string {
  return `INVALID_ARGUMENT: url: only ${SAYS[policy]} URLs can be opened (got ${row.got})`;
}

/** The rows `policy` refuses. */
export function refusedBy(policy: UrlPolicy, rows: readonly HostileUrl[]): HostileUrl[] {
  return rows.filter((r) => !r.opens.includes(policy));
}
