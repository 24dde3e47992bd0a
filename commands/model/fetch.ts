/**
 * `svc fetch URL` (docs/cli.md): one page, no key needed, by plain HTTP or `--browser` (a one-shot Chrome, closed
 * also on Ctrl-C, or the `--session` browser). Without --json a final status outside 2xx is an error (exit 5) naming
 * it; with --json the document carries `statusCode` and the command succeeds, the caller deciding.
 */
import type { FetchFormat, FetchResult } from "../../src/index.js";
import { ServiceFetchError, ServiceInvalidArgumentError } from "../../src/base.js";
import type { CloudGlobals } from "../core/cloud.js";
import { type RunContext, output, withOneShot, withSession } from "../core/runtime.js";
import { checkOutputPath, writeOutputFile } from "../core/output-file.js";
import { typedUrl } from "../core/url.js";
import type { FETCH_OPTIONS } from "../registry/model.js";
import type { FlagsOf } from "../registry/types.js";

export type FetchFlags = FlagsOf<typeof FETCH_OPTIONS>;

const FORMATS: readonly FetchFormat[] = ["markdown", "text", "html", "raw", "json"];

function positiveInteger(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) throw new ServiceInvalidArgumentError(`${flag}: expected a positive whole number (got "${raw}")`);
  return n;
}

function absoluteLocation(location: string | undefined, base: string): string | undefined {
  if (!location) return undefined;
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

/** Without --json, a status outside 2xx fails the command with one line naming it. */
function checkStatus(result: FetchResult, redirects: boolean): void {
  const s = result.statusCode;
  if (s >= 200 && s < 300) return;
  const location = absoluteLocation(result.headers["location"], result.url);
  if (s >= 300 && s < 400 && location) {
    throw new ServiceFetchError(`${result.url} answered HTTP ${s}, a redirect to ${location}${redirects ? "" : " (not followed: --no-redirects)"}`, {
      hint: "add --json for the response itself",
    });
  }
  throw new ServiceFetchError(`${result.url} answered HTTP ${s}`, { hint: "add --json for the response anyway (its content and statusCode)" });
}

export async function fetchCommand(g: CloudGlobals, rawUrl: string, opts: FetchFlags): Promise<void> {
  // Everything is validated before a request is sent or a browser started.
  const [{ fetchPage, pageRenderer }, { checkFetchUrl }] = await Promise.all([import("../../src/index.js"), import("../../src/internal.js")]);
  const url = checkFetchUrl(typedUrl(rawUrl)).href;
  const format = opts.format as FetchFormat;
  if (!FORMATS.includes(format)) throw new ServiceInvalidArgumentError(`--format: one of ${FORMATS.join(", ")} (got "${opts.format}")`);
  const timeoutMs = positiveInteger("--timeout", opts.timeout);
  const maxBytes = positiveInteger("--max-bytes", opts.maxBytes);
  if (opts.browser && !opts.redirects) throw new ServiceInvalidArgumentError("--no-redirects cannot apply with --browser: Chrome follows redirects itself");
  if (g.session !== undefined && !opts.browser) throw new ServiceInvalidArgumentError("--session applies with --browser (a plain fetch uses no browser)");
  const path = opts.output !== undefined ? checkOutputPath(opts.output) : undefined;

  const base = {
    format,
    allowRedirects: opts.redirects,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
  };
  let result: FetchResult;
  if (opts.browser) {
    const run = async ({ svc, note }: RunContext) => {
      const r = await fetchPage(url, { ...base, browser: pageRenderer(svc.page) });
      note({ method: "navigate", parameters: { url }, result: { url: r.url, status: r.statusCode } });
      return r;
    };
    result = g.session !== undefined ? await withSession(g, run) : await withOneShot(g, {}, run);
  } else {
    result = await fetchPage(url, base);
  }

  const out = output(g);
  if (!g.json) checkStatus(result, opts.redirects);
  if (path !== undefined) {
    const bytes = Buffer.from(result.content, "utf8");
    writeOutputFile(path, bytes);
    const { content: _content, ...meta } = result;
    out.result({ ...meta, path, bytes: bytes.length }, () => path);
    return;
  }
  // The content as it is: one trailing newline at most, as a file would end.
  out.result({ ...result }, () => result.content.replace(/\n$/, ""));
}
