/**
 * The server's Chromes accept no browser origin on their DevTools endpoint. The library's default
 * arguments include `--remote-allow-origins=*` (docs/wire-formats.md "Construction options"); with it, a page in any tenant's browser
 * that finds a DevTools port on loopback could open a WebSocket to it and drive that browser. The server
 * reaches its Chromes without an Origin (the CDP proxy, the session Services), which Chrome accepts anyway,
 * so here the default is dropped and the operator's `args` cannot bring it back.
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
