/**
 * A client-given cdpUrl as the ws:// endpoint the session's Service attaches to. When isolated it passes the tenant
 * address policy, since every tenant's Chrome listens on this host's loopback; /json/version and the WebSocket are
 * opened here with the guarded lookup and no redirects (chrome-remote-interface would follow them), the Service
 * attaching to a loopback relay.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import type { AddressPolicy } from "../../util/address-policy.js";
import { guardedFetch, guardedLookup, type HostPolicy, refusalIn } from "../../util/guarded-fetch.js";
import { MAX_CDP_MESSAGE, relay } from "../relay.js";
import { type ServerConfig, tenantPolicy } from "../config.js";
import { readCapped } from "../../util/read-capped.js";
import { InternalFailureError } from "../failures.js";
import { ServiceInvalidArgumentError } from "../../index.js";

const FIELD = "browser.cdpUrl";
const REFUSED = `${FIELD}: loopback, private and link-local addresses are refused on this server`;
/** How long the relay waits for the Service to attach before giving up on it. */
const ATTACH_WAIT_MS = 30_000;
const MAX_VERSION_BYTES = 64 * 1024;

export async function clientCdpEndpoint(cdpUrl: string, config: ServerConfig): Promise<string> {
  const policy = tenantPolicy(config);
  // A unix socket is this host's: svc's own Chromes are reached that way (devtools-socket.ts).
  if (policy && !/^(wss?|https?):/i.test(cdpUrl)) throw new ServiceInvalidArgumentError(`${FIELD}: only ws:, wss:, http: and https: URLs are accepted on this server`);
  const ws = /^wss?:/i.test(cdpUrl) ? cdpUrl : await versionEndpoint(cdpUrl, policy);
  return policy ? pinnedRelay(ws, policy) : ws;
}

/** The webSocketDebuggerUrl an http(s) DevTools endpoint names at its /json/version. */
async function versionEndpoint(cdpUrl: string, policy: AddressPolicy | undefined): Promise<string> {
  // Relative to the URL's path: a proxied browser lives under a prefix (…/v1/connect/{id}/{token}).
  const url = new URL(`${cdpUrl.replace(/\/+$/, "").replace(/\/json\/version$/, "")}/json/version`);
  const guarded = policy ? guardedFetch(hostPolicy(policy)) : undefined;
  let ws: unknown;
  try {
    if (policy) refuseLiteral(url, policy);
    const init = { signal: AbortSignal.timeout(10_000), redirect: "error" } as const;
    const res = guarded ? await guarded.fetch(url, init) : await fetch(url, init);
    ws = (JSON.parse((await readCapped(res.body, MAX_VERSION_BYTES, () => new Error("the /json/version answer is too large"))).toString("utf8")) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl;
  } catch (e) {
    throw refusal(e) ?? new ServiceInvalidArgumentError(`${FIELD}: no DevTools endpoint answered at its /json/version`);
  } finally {
    await guarded?.close().catch(() => {});
  }
  if (typeof ws !== "string" || !/^wss?:\/\//i.test(ws)) throw new ServiceInvalidArgumentError(`${FIELD}: its /json/version names no webSocketDebuggerUrl`);
  return ws;
}

/**
 * Opens the WebSocket to `wsUrl` under the policy, then serves it once on a loopback port under a random
 * path: the returned URL is what the Service attaches to. The relay ends with either side.
 */
async function pinnedRelay(wsUrl: string, policy: AddressPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(wsUrl);
  } catch {
    throw new ServiceInvalidArgumentError(`${FIELD}: its /json/version names no valid WebSocket URL`);
  }
  refuseLiteral(url, policy);
  const port = Number(url.port || (url.protocol === "wss:" ? 443 : 80));
  const upstream = await new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, {
      lookup: guardedLookup(hostPolicy(policy), port) as never,
      followRedirects: false,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
      maxPayload: MAX_CDP_MESSAGE,
    });
    ws.on("error", (e) => reject(refusal(e) ?? new ServiceInvalidArgumentError(`${FIELD}: no DevTools endpoint accepted the WebSocket connection`)));
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      ws.terminate();
      const redirect = (res.statusCode ?? 0) >= 300 && (res.statusCode ?? 0) < 400;
      reject(new ServiceInvalidArgumentError(`${FIELD}: the endpoint answered the WebSocket handshake with HTTP ${res.statusCode ?? "?"}${redirect ? " (redirects are not followed)" : ""}`));
    });
    ws.once("open", () => resolve(ws));
  });
  // Chrome speaks only when spoken to; hold anything else until the Service is there to read it.
  upstream.pause();

  const path = `/${randomBytes(24).toString("base64url")}`;
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    path,
    perMessageDeflate: false,
    maxPayload: MAX_CDP_MESSAGE,
    // The Service sends no Origin; a web page always does.
    verifyClient: (info: { req: { headers: Record<string, unknown> } }) => info.req.headers.origin === undefined,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch {
    upstream.terminate();
    throw new InternalFailureError("could not open the local end of the cdpUrl connection");
  }
  server.on("error", () => {});
  const done = () => {
    clearTimeout(timer);
    server.close();
  };
  const timer = setTimeout(() => {
    done();
    upstream.terminate();
  }, ATTACH_WAIT_MS);
  timer.unref();
  upstream.once("close", done);
  let attached = false;
  server.on("connection", (service) => {
    if (attached) return service.terminate();
    attached = true;
    done();
    relay(service, upstream);
    upstream.resume();
  });
  const address = server.address();
  const localPort = typeof address === "object" && address ? address.port : 0;
  return `ws://127.0.0.1:${localPort}${path}`;
}

function hostPolicy(policy: AddressPolicy): HostPolicy {
  return (host, addresses, port) => policy.refusal(host, addresses, port);
}

/** An IP written in the URL is connected to without a lookup, so it is checked here. */
function refuseLiteral(url: URL, policy: AddressPolicy): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host)) return;
  const port = Number(url.port || (/^(https|wss):$/.test(url.protocol) ? 443 : 80));
  const reason = policy.refusal(host, [], port);
  if (reason) throw new ServiceInvalidArgumentError(`${REFUSED}: ${reason}`);
}

/** The policy's refusal anywhere in an error's cause chain, as the 400 to answer. */
function refusal(e: unknown): ServiceInvalidArgumentError | undefined {
  for (let c: unknown = e, i = 0; c && i < 6; c = (c as { cause?: unknown }).cause, i++) if (c instanceof ServiceInvalidArgumentError) return c;
  const refused = refusalIn(e);
  return refused ? new ServiceInvalidArgumentError(`${REFUSED}: ${refused.reason}`) : undefined;
}

