/**
 * Which URLs may be opened on the word of whoever drives a browser: the one rule every door applies (Page.goto and
 * newPage through ServiceOptions.urlPolicy, the CLI before a browser starts, `fetch`, the live view's address box). A
 * policy follows who may be typing: docs/isolation.md. None opens javascript: (code in the page) or Chrome's own pages
 * (chrome:, devtools:, view-source:, other about:).
 */
import { ServiceInvalidArgumentError } from "../errors.js";

export const URL_POLICIES = ["any", "web", "http", "http+file"] as const;
export type UrlPolicy = (typeof URL_POLICIES)[number];

type Kind = "http" | "file" | "data" | "blank";

/** What each policy opens, in the words of its refusal. */
const OPENS: Record<UrlPolicy, { kinds: readonly Kind[]; says: string }> = {
  any: { kinds: ["http", "file", "data", "blank"], says: "http, https, file, data and about:blank" },
  web: { kinds: ["http", "data", "blank"], says: "http, https, data and about:blank" },
  http: { kinds: ["http"], says: "http and https" },
  "http+file": { kinds: ["http", "file"], says: "http, https and file" },
};

/** The schemes any policy opens (of about:, only about:blank). */
const SCHEMES: Record<string, Kind> = { "http:": "http", "https:": "http", "file:": "file", "data:": "data", "about:": "blank" };

function kindOf(u: URL): Kind | undefined {
  const kind = Object.hasOwn(SCHEMES, u.protocol) ? SCHEMES[u.protocol] : undefined;
  return kind === "blank" && u.pathname !== "blank" ? undefined : kind;
}

/** Whether some policy may open URLs of this scheme (`localhost:3000` typed bare parses as scheme `localhost:`). */
export function isOpenableScheme(protocol: string): boolean {
  return Object.hasOwn(SCHEMES, protocol.toLowerCase());
}

/** Throws INVALID_ARGUMENT naming the scheme when `policy` refuses `url`; `fileHint` goes with a refused file: URL. */
export function checkUrlPolicy(url: URL, policy: UrlPolicy, fileHint?: string): void {
  const kind = kindOf(url);
  if (kind && OPENS[policy].kinds.includes(kind)) return;
  const got = url.protocol === "about:" ? `about:${url.pathname.slice(0, 20)}` : url.protocol.slice(0, 40);
  const hint = url.protocol === "file:" ? fileHint : undefined;
  throw new ServiceInvalidArgumentError(`url: only ${OPENS[policy].says} URLs can be opened (got ${got})`, hint ? { hint } : {});
}

/** checkUrlPolicy on text: a URL that does not parse is INVALID_ARGUMENT too. Returns the parsed URL. */
export function checkUrlText(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServiceInvalidArgumentError(`url: "${raw.slice(0, 200)}" is not a valid URL`, { hint: "use a full URL such as https://example.com" });
  }
  checkUrlPolicy(url, policy);
  return url;
}
