/**
 * startServer(): the app on a node http server, the CDP proxy on its upgrade path, the egress proxy of an isolated
 * server's Chromes, admission control, and a graceful close: /readyz and new requests get 503 DRAINING, in-flight
 * runs get shutdownGraceS to finish and are then aborted (streams end with `error`), every browser ends, the listener
 * closes.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Admission } from "./platform/admission.js";
import { ApiSessions } from "./session-api/service-sessions.js";
import { createApp, handleClientErrors, type ServerDeps } from "./app.js";
import { attachCdpProxy } from "./cdp/proxy.js";
import { liveSocketHandler } from "./live/routes-live-socket.js";
import { startCluster } from "./cluster/index.js";
import { dataDirOf, isolated, resolveServerOptions, type ServerConfig, type ServerOptions, tenantPolicy } from "./config.js";
import { startEgressProxy } from "./isolation/egress-proxy.js";
import { openContexts } from "./features/contexts.js";
import { contextsFeature } from "./features/contexts-feature.js";
import { ExtensionStore, ExtensionsFeature } from "./features/extensions.js";
import { checkIsolatedManifest } from "./features/extensions-policy.js";
import { LoadMonitor } from "./platform/load.js";
import { PlatformSessions } from "./platform/chrome-sessions.js";
import type { SessionFeature } from "./platform/feature.js";
import { UsageMeter } from "./platform/routes-projects.js";
import { StagehandCache } from "./stagehand/cache.js";
import { SessionRecorders } from "./features/recorder-feature.js";
import { TargetWatches } from "./features/target-watch-feature.js";

export { type ServerOptions, type ServerConfig, ServerOptionsSchema } from "./config.js";
export { keyFingerprint } from "./tenant.js";

export interface RunningServer {
  /** http://host:port (or publicUrl). */
  readonly url: string;
  readonly port: number;
  readonly config: ServerConfig;
  /** Graceful shutdown; resolves when every browser is gone and the listener is closed. */
  close(reason?: string): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config = resolveServerOptions(options);
  const log = config.log ?? (() => {});
  let url = config.publicUrl ?? "";
  let shuttingDown = false;
  const publicUrl = () => url;
  const policy = tenantPolicy(config);
  // Isolated tenants' Chromes reach the network only through this proxy (see isolation/egress-proxy.ts).
  const egress = policy ? await startEgressProxy(policy, log) : undefined;
  let listenUrl = "";
  // Cluster mode: sessions recorded in the shared store; requests for other replicas' sessions forwarded.
  const cluster = await startCluster(config, () => listenUrl, log).catch(async (e: unknown) => {
    await egress?.close();
    throw e;
  });
  // Every browser session takes a slot here first; load samples admit queued starts when the load drops.
  const limits = { maxSessions: config.maxSessions, maxQueued: config.maxQueued, queueTimeoutMs: config.queueTimeoutS * 1000, maxCpu: config.maxCpu, maxMemoryBytes: config.maxMemoryBytes };
  const monitor = new LoadMonitor(() => admission.pump());
  const admission = new Admission(limits, () => monitor.read());
  // What each session may add to its Chrome's life (contexts, extensions, logs …): platform/feature.ts.
  const usage = new UsageMeter();
  // Stagehand 4's cache: in the cluster's Redis when there is one (every replica serves the same entries).
  const cacheLimits = { maxEntryBytes: config.cacheMaxEntryBytes, maxEntries: config.cacheMaxEntriesPerKey, maxBytes: config.cacheMaxBytesPerKey };
  const stagehandCache = new StagehandCache(cacheLimits, config.cluster ? { url: config.cluster.store, prefix: config.cluster.prefix } : undefined);
  const recorders = new SessionRecorders(config, log);
  const extensions = new ExtensionStore(dataDirOf(config), isolated(config) ? checkIsolatedManifest : undefined, { maxBytesPerKey: config.extensionsMaxBytesPerKey });
  const extensionsFeature = new ExtensionsFeature(extensions);
  // Isolated servers: svc's own watch on each session's targets, which the CDP filter asks (features/target-watch.ts).
  const targetWatches = new TargetWatches((id) => extensionsFeature.chromeIds(id), log);
  const contexts = await openContexts(config, log).catch(async (e: unknown) => {
    await cluster?.close();
    await egress?.close();
    throw e;
  });
  await stagehandCache.connect().catch(async (e: unknown) => {
    await stagehandCache.close();
    await contexts.close();
    await cluster?.close();
    await egress?.close();
    throw e;
  });
  // The watch starts after the extensions are loaded (their loading opens chrome://extensions, which the watch would close).
  // Keep contexts LAST: its `ending` closes Chrome cleanly (to save the profile), so later features' would find it gone.
  const features: SessionFeature[] = [usage, extensionsFeature, targetWatches, recorders, contextsFeature(contexts, config, log)];
  const platform = new PlatformSessions({ config, publicUrl, log, egress, admission, registry: cluster?.cluster, features });
  const api = new ApiSessions({ config, platform, publicUrl, log, registry: cluster?.cluster });
  if (cluster) cluster.cluster.onLost = (kind, id) => (kind === "api" ? api.lost(id) : platform.lost(id));
  const deps: ServerDeps = { config, platform, api, admission, publicUrl, log, shuttingDown: () => shuttingDown, cluster, contexts, extensions, usage, stagehandCache, recorders };
  const app = createApp(deps);

  const server = await new Promise<Server>((resolvePromise, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolvePromise(s as Server)) as Server;
    s.once("error", reject);
  }).catch(async (e: unknown) => {
    await monitor.close();
    await platform.closeAll();
    recorders.close();
    await egress?.close();
    await stagehandCache.close();
    await cluster?.close();
    await contexts.close();
    throw e;
  });
  // Clients pool connections (undici keeps them ~4 s idle by default, longer under load); Node's 5 s
  // keep-alive lets the server close a socket just as a stalled client reuses it (ECONNRESET under load).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  listenUrl = `http://${host}:${port}`;
  url ||= listenUrl;
  const tenants = { ownExtensions: (id: string) => extensionsFeature.chromeIds(id), watchOf: (id: string) => targetWatches.watchOf(id) };
  attachCdpProxy(server, platform, config, { forward: cluster?.upgrade, tenants, live: liveSocketHandler({ platform, config, tenants, log }) });
  handleClientErrors(server, log);
  log(`listening on ${url}`);
  if (cluster) log(`cluster: replica ${cluster.cluster.replica} at ${cluster.cluster.advertiseUrl}`);

  let closing: Promise<void> | undefined;
  const close = (reason = "the server is shutting down") =>
    (closing ??= (async () => {
      // Draining: /readyz and new requests 503, queued starts 503 DRAINING; what runs gets the drain time.
      shuttingDown = true;
      admission.drain();
      log(`draining: up to ${config.shutdownGraceS}s for requests in flight`);
      await api.closeAll(reason, config.shutdownGraceS * 1000);
      await platform.closeAll();
      recorders.close();
      await monitor.close();
      await egress?.close();
      await contexts.close();
      await stagehandCache.close();
      // After every session recorded its end: the heartbeat stops, the store connection closes.
      await cluster?.close();
      await new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
      log("stopped");
    })());

  return { url, port, config, close };
}
