/**
 * Which URLs may be opened on the word of whoever drives a browser (ServiceOptions.urlPolicy): the one rule
 * behind Page.goto — so a tool's navigation, a new tab, the agent's goto and its cached replays alike — and
 * behind `fetch`.
 * - "any": every scheme goto knows (the browser's owner typed the URL);
 * - "web": http:, https:, data: and about:blank (the browser serves others than its owner: a server's tenants);
 *   file: reads the host's files; chrome:, devtools:, view-source: and about: pages show its settings;
 * - "http": http: and https: only (the URL may come from a model a page can steer: an MCP client, its agent);
 * - "http+file": those and file: (an operator let local files be opened).
 */
import { ServiceInvalidArgumentError } from "../errors.js";

export const URL_POLICIES = ["any", "web", "http", "http+file"] as const;
export type UrlPolicy = (typeof URL_POLICIES)[number];

const ALLOWED: Record<Exclude<UrlPolicy, "any">, { test(u: URL): boolean; says: string }> = {
  web: { test: (u) => isHttp(u) || u.protocol === "data:" || (u.protocol === "about:" && u.pathname === "blank"), says: "http, https, data and about:blank" },
  http: { test: isHttp, says: "http and https" },
  "http+file": { test: (u) => isHttp(u) || u.protocol === "file:", says: "http, https and file" },
};

function isHttp(u: URL): boolean {
  return u.protocol === "http:" || u.protocol === "https:";
}

/** Throws INVALID_ARGUMENT naming the scheme when `policy` refuses `url`; `fileHint` goes with a refused file: URL. */
export function checkUrlPolicy(url: URL, policy: UrlPolicy, fileHint?: string): void {
  if (policy === "any" || ALLOWED[policy].test(url)) return;
  const got = url.protocol === "about:" ? `about:${url.pathname.slice(0, 20)}` : url.protocol;
  const hint = url.protocol === "file:" ? fileHint : undefined;
  throw new ServiceInvalidArgumentError(`url: only ${ALLOWED[policy].says} URLs can be opened (got ${got})`, hint ? { hint } : {});
}
