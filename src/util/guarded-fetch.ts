/**
 * The host policy at connect time. checkHost() asks before each request, but the request resolves the name again, so
 * DNS rebinding (public address first, loopback second) would pass the check. With a policy, requests go through an
 * undici Agent whose `lookup` is the socket's own, so the addresses checked are the addresses used.
 */
import { lookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { RefusedAtConnectError } from "./refusal.js";

export { RefusedAtConnectError, refusalIn } from "./refusal.js";

/** Why `host` (resolved to `addresses`, reached on `port`) is refused, or undefined (see AddressPolicy). */
export type HostPolicy = (host: string, addresses: string[], port?: number) => string | undefined;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function guardedLookup(policy: HostPolicy, port?: number) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const reason = policy(hostname, addresses.map((a) => a.address), port);
      if (reason) return callback(new RefusedAtConnectError(hostname, reason) as NodeJS.ErrnoException, []);
      // net.connect asks for `all` when it races address families (autoSelectFamily), else for one.
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** A fetch that connects only where `policy` allows (one per request chain; close it after). */
export function guardedFetch(policy: HostPolicy): { fetch: (url: URL, init: RequestInit) => Promise<Response>; close(): Promise<void> } {
  // A connector per connection: the lookup hook gets no port, and an allowlist entry may name one.
  const agent = new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === "https:" ? 443 : 80);
      // An IP literal connects without any lookup, so the lookup hook never sees it: asked here.
      const literal = opts.hostname.replace(/^\[|\]$/g, "");
      const reason = isIP(literal) ? policy(literal, [literal], port) : undefined;
      if (reason) return callback(new RefusedAtConnectError(literal, reason), null);
      buildConnector({ lookup: guardedLookup(policy, port) as never })(opts, callback);
    },
  });
  return {
    fetch: async (url, init) => (await undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response,
    close: () => agent.close(),
  };
}
