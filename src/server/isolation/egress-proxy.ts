/**
 * The egress proxy of an isolated server: tenant Chromes reach the network only through it (isolationArgs(): their
 * one proxy, no loopback bypass, QUIC and non-proxied WebRTC UDP off), and it connects only to the addresses it
 * checked, so DNS rebinding gets no second answer. A refusal is a 403 before connecting, so open and closed ports
 * look alike. Loopback only (docs/isolation.md).
 */
import type { LookupAddress } from "node:dns";
import { Agent } from "node:http";
import { RequestError, Server } from "proxy-chain";
import type { AddressPolicy } from "../../util/address-policy.js";
import { guardedLookup, RefusedAtConnectError } from "../../util/guarded-fetch.js";
import { isolated, type ServerConfig } from "../config.js";

export interface EgressProxy {
  /** The loopback port Chrome is pointed at. */
  readonly port: number;
  /** Stops listening and ends every tunnel and request in flight. */
  close(): Promise<void>;
}

/**
 * How long an idle upstream connection is kept for reuse, at most; a server's `Keep-Alive: timeout=N` lowers it to
 * N - 1 s (node:http's agent reads the hint only when this is set). Kept until the server drops it, a connection
 * reused at that moment is reset, and the page gets the proxy's 595 instead of the site. Node servers drop one at 5 s.
 */
const IDLE_UPSTREAM_MS = 4_000;

/** Refusals logged per window; past it one summary line says how many more were refused (a port scan). */
const LOG_BURST = 20;
const LOG_WINDOW_MS = 10_000;

export async function startEgressProxy(policy: AddressPolicy, log: (line: string) => void): Promise<EgressProxy> {
  // Plain-HTTP requests reuse upstream connections per host:port; each was made to checked addresses.
  const agent = new Agent({ keepAlive: true, timeout: IDLE_UPSTREAM_MS });
  const refused = refusalLog(log);
  const server = new Server({
    host: "127.0.0.1",
    port: 0,
    prepareRequestFunction: async ({ hostname, port }) => {
      const addresses = await resolveChecked(policy, hostname.replace(/^\[|\]$/g, ""), port, refused);
      return { dnsLookup: pinnedLookup(addresses) as never, httpAgent: agent };
    },
  });
  server.on("requestFailed", ({ error }: { error: Error }) => log(`egress proxy: request failed: ${error.message.split("\n")[0]}`));
  await server.listen();
  return {
    port: server.port,
    async close() {
      await server.close(true);
      agent.destroy();
      refused.stop();
    },
  };
}

/** The target's addresses, each one allowed by `policy`; else a RequestError (403 refused, 502 unresolvable). */
function resolveChecked(policy: AddressPolicy, host: string, port: number, refused: (line: string) => void): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    guardedLookup((h, a, p) => policy.refusal(h, a, p), port)(host, { all: true }, (err, addresses) => {
      if (err instanceof RefusedAtConnectError) {
        refused(`egress refused ${short(host)}:${port}: ${err.reason}`);
        return reject(new RequestError(`refused by svc: ${err.reason}`, 403));
      }
      if (err) return reject(new RequestError(`${short(host)} did not resolve (${err.code ?? "lookup failed"})`, 502));
      resolve(addresses as LookupAddress[]);
    });
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup stand-in answering only the addresses already checked: the connection cannot resolve anew. */
function pinnedLookup(addresses: LookupAddress[]) {
  return (_host: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    if (typeof options === "object" && options?.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/** Logs refusals, at most LOG_BURST per window, then one line counting the rest. */
function refusalLog(log: (line: string) => void): ((line: string) => void) & { stop(): void } {
  let count = 0;
  let suppressed = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (suppressed) log(`egress refused ${suppressed} more connection(s) in the last ${LOG_WINDOW_MS / 1000}s`);
    count = suppressed = 0;
    timer = undefined;
  };
  const write = (line: string) => {
    timer ??= setTimeout(flush, LOG_WINDOW_MS).unref();
    if (count++ < LOG_BURST) log(line);
    else suppressed++;
  };
  return Object.assign(write, { stop: () => (clearTimeout(timer), flush()) });
}

/**
 * Switches a Chrome's own arguments (the operator's or a tenant's launch options) may not carry on an
 * isolated server: each would route requests around the proxy (a proxy of its own, none, a PAC script),
 * re-enable UDP (QUIC, WebRTC), or load an extension (which may set the proxy through chrome.proxy).
 */
const OVERRIDING_SWITCHES = new Set([
  "proxy-server",
  "no-proxy-server",
  "proxy-pac-url",
  "proxy-auto-detect",
  "proxy-bypass-list",
  "enable-quic",
  "origin-to-force-quic-on",
  "force-webrtc-ip-handling-policy",
  "webrtc-ip-handling-policy",
  "load-extension",
]);

/**
 * A session Chrome's `args` on this server: unchanged when tenants are not isolated; else without the
 * switches above and with the egress proxy's (last, so they win over anything earlier on the line).
 * Throws when the server is isolated but has no egress proxy: a tenant Chrome never starts without it.
 */
export function isolationArgs(config: ServerConfig, egress: EgressProxy | undefined, args: readonly string[]): string[] {
  if (!isolated(config)) return [...args];
  if (!egress) throw new Error("an isolated server launches tenant Chromes only through its egress proxy");
  // Chrome reads `--x` and `-x` alike. After a bare `--` nothing is a switch, ours included: cut it there.
  const end = args.indexOf("--");
  const kept = (end === -1 ? args : args.slice(0, end)).filter((a) => !OVERRIDING_SWITCHES.has(/^--?([^=]*)/.exec(a)?.[1]?.toLowerCase() ?? ""));
  return [
    ...kept,
    `--proxy-server=http://127.0.0.1:${egress.port}`,
    "--proxy-bypass-list=<-loopback>",
    "--disable-quic",
    // Checked by behaviour on Chromium 156. Chrome reads the first (the second alone still let STUN reach a
    // loopback socket); Chromium's headless shell, which has no Chrome layer, reads only the second and
    // without it sent UDP host candidates. Both stop every candidate on both builds.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  ];
}

function short(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
