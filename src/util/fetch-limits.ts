/** The fetch engine's formats and defaults (src/fetch/), light enough for every door's declaration (capabilities/web.ts). */

/** markdown: readable content as Markdown; text: readable text; html: the document; raw: the body as text; json: the body as pretty JSON. */
export type FetchFormat = "markdown" | "text" | "html" | "raw" | "json";

export const FETCH_FORMATS: readonly FetchFormat[] = Object.freeze(["markdown", "text", "html", "raw", "json"]);

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_FETCH_MAX_REDIRECTS = 10;
