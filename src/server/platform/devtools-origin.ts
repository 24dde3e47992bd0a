/**
 * The server's Chromes accept no browser origin on DevTools: with the library's default `--remote-allow-origins=*`, a
 * page in any tenant's browser that found a DevTools port could drive that browser. The server connects without an
 * Origin, which Chrome accepts anyway, so the default is dropped and `args` cannot bring it back.
 */
import type { LocalBrowserLaunchOptions } from "../../index.js";

const ALLOW_ORIGINS = "--remote-allow-origins=*";

export function withoutBrowserOrigins(options: LocalBrowserLaunchOptions): LocalBrowserLaunchOptions {
  const ignore = options.ignoreDefaultArgs ?? false;
  return {
    ...options,
    ignoreDefaultArgs: ignore === true ? true : [...(Array.isArray(ignore) ? ignore : []), ALLOW_ORIGINS],
    ...(options.args ? { args: options.args.filter((a) => !/^--?remote-allow-origins(=|$)/i.test(a)) } : {}),
  };
}
