/**
 * Where a CDP client's downloads go: always the session's own folder. A client's setDownloadBehavior names a path on
 * ITS machine (Playwright sends one for every context), which Chrome would resolve on the server's disk. So every
 * server forwards it as `allow` into the session's folder (`deny` without one), whatever it asked: a client can
 * neither write elsewhere nor turn the session's downloads off.
 */

type Params = Record<string, unknown>;

/** The commands rewritten, and how. */
export function downloadRewrites(downloadPath: string | undefined): Map<string, (p: Params) => Params> {
  const downloads = (p: Params): Params => (downloadPath ? { ...p, behavior: "allow", downloadPath } : { ...p, behavior: "deny", downloadPath: undefined });
  return new Map([
    ["Browser.setDownloadBehavior", downloads],
    ["Page.setDownloadBehavior", downloads],
  ]);
}

const MARK = Buffer.from("DownloadBehavior");

/**
 * The relay hook of a server that does not filter its tenant's CDP (one key): every message passes as
 * sent, but for the download commands above. Messages that cannot name one are not parsed.
 */
export function downloadsOnly(downloadPath: string | undefined): (data: Buffer, isBinary: boolean) => { forward: string | Buffer } {
  const rewrites = downloadRewrites(downloadPath);
  return (data, isBinary) => {
    if (isBinary || data.indexOf(MARK) < 0) return { forward: data };
    let m: { method?: unknown; params?: unknown };
    try {
      m = JSON.parse(data.toString("utf8")) as typeof m;
    } catch {
      return { forward: data };
    }
    const rewrite = typeof m?.method === "string" ? rewrites.get(m.method) : undefined;
    if (!rewrite) return { forward: data };
    const params = typeof m.params === "object" && m.params !== null && !Array.isArray(m.params) ? (m.params as Params) : {};
    return { forward: JSON.stringify({ ...m, params: rewrite(params) }) };
  };
}
