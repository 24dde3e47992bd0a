/**
 * `svc serve`: the HTTP API (session API + platform API, src/server) on this machine. It runs until
 * main.ts turns SIGINT/SIGTERM/SIGHUP into `stop`, then closes gracefully: requests in flight get their
 * grace, every browser is ended, and the command returns the signal (main.ts decides the exit code).
 * The server is imported only here, so no other command pays for hono.
 */
import { join, resolve } from "node:path";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { AddressPolicy } from "../../src/base.js";
import { registerCleanup } from "../core/cleanup.js";
import { type ClusterFlags, clusterOptions } from "./serve-cluster.js";
import { type ServeSecretFlags, serveSecrets } from "./serve-secrets.js";
import type { SecretValue } from "../core/secret-flags.js";
import { limitOptions } from "./serve-limits.js";
import { type GlobalOptions, SCHEMA_VERSION } from "../core/output.js";
import { type LaunchFlags, launchDefaults, stateRoot } from "../core/runtime.js";
import { parseSetting, type SettingsStore, settingDef, splitList } from "../core/settings.js";
import { isHttpUrl } from "../core/url.js";

/** The numbers come parsed and in range: the registry declares each with its bounds (commands/registry/server.ts). */
export interface ServeFlags extends LaunchFlags, ClusterFlags, ServeSecretFlags {
  port?: number;
  host?: string;
  maxSessions?: number;
  queue?: number;
  queueTimeout?: number;
  maxCpu?: number;
  maxMemory?: number;
  drainTimeout?: number;
  warmBrowsers?: number;
  sessionTimeout?: number;
  idleTimeout?: number;
  bodyLimit?: number;
  cacheDir?: string;
  dataDir?: string;
  publicUrl?: string;
  searchUrl?: string;
  isolate?: boolean;
  allowNet?: string[];
  modelEndpoints?: string[];
}

const MIN_KEY_LENGTH = 8;

function publicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!isHttpUrl(raw)) throw new ServiceInvalidArgumentError(`--public-url must be an http(s) URL, got "${raw}"`, { hint: "e.g. --public-url https://svc.example.com" });
  return raw.replace(/\/+$/, "");
}

/** One `--model-endpoints` entry: an http(s) URL prefix, without a trailing slash. */
function modelEndpoint(raw: string): string {
  if (!isHttpUrl(raw)) throw new ServiceInvalidArgumentError(`--model-endpoints must be an http(s) URL prefix, got "${raw.slice(0, 80)}"`, { hint: "e.g. --model-endpoints https://api.openai.com/v1" });
  return raw.replace(/\/+$/, "");
}

/** `--api-key` (repeatable) or `--api-key-file` > SVC_API_KEYS > stored `server.apiKeys`; none is a usage error. */
function serverKeys(given: SecretValue | undefined, settings: SettingsStore): string[] {
  let keys: string[];
  let from: string;
  if (given) {
    keys = given.values.map((k) => k.trim());
    from = given.from;
  } else {
    const eff = settings.effective("server.apiKeys");
    keys = typeof eff.value === "string" ? splitList(eff.value) : [];
    from = eff.source === "env" ? (eff.envVar ?? "SVC_API_KEYS") : "config server.apiKeys";
  }
  if (!keys.length) {
    throw new ServiceInvalidArgumentError(
      "svc serve needs at least one API key for its clients: set SVC_API_KEYS=key1,key2, give --api-key-file FILE (mode 0600, one key a line; - reads stdin), or run svc config set server.apiKeys key1,key2",
    );
  }
  if (keys.some((k) => k.length < MIN_KEY_LENGTH)) throw new ServiceInvalidArgumentError(`${from}: an API key needs at least ${MIN_KEY_LENGTH} characters`);
  return keys;
}

/** `--search-url` > SVC_SEARCH_URL > stored `search.url`: the SearXNG instance behind POST /v1/search, or none (501). */
function serverSearchUrl(flag: string | undefined, settings: SettingsStore): string | undefined {
  const def = settingDef("search.url");
  const parsed = flag !== undefined ? parseSetting(def, flag, "--search-url") : undefined;
  const value = settings.effective("search.url", { "search.url": parsed }).value;
  return typeof value === "string" && value ? value.replace(/\/+$/, "") : undefined;
}

/** The listen failures a user fixes with a flag, said in terms of that flag. */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE") return new ServiceInvalidArgumentError(`--port ${port}: ${host}:${port} is already in use`, { hint: "pick another --port (0: any free port)", cause: e });
  if (code === "EACCES") return new ServiceInvalidArgumentError(`--port ${port}: not allowed to listen on ${host}:${port}`, { hint: "use a port above 1023", cause: e });
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return new ServiceInvalidArgumentError(`--host ${host}: no such interface on this machine`, { cause: e });
  return e;
}

/** What the CLI announces itself; the server's own log lines saying the same are not repeated. */
const ANNOUNCED = /^(listening on |stopped$)/;

export async function serve(g: GlobalOptions, flags: ServeFlags, stop: AbortSignal): Promise<NodeJS.Signals> {
  // Secrets first: one given as an argument leaves the visible command line before anything else runs.
  const secrets = await serveSecrets(flags);
  // Validate every flag before anything is started.
  const port = flags.port ?? 3000;
  const host = (flags.host ?? "127.0.0.1").trim();
  if (!host) throw new ServiceInvalidArgumentError("--host must not be empty");
  const { maxSessions, queue: maxQueued, queueTimeout: queueTimeoutS, maxCpu, maxMemory: maxMemoryBytes, drainTimeout, sessionTimeout: sessionTimeoutS, idleTimeout: idleTimeoutS, bodyLimit: bodyLimitBytes } = flags;
  const warmBrowsers = flags.warmBrowsers ?? 1;
  const url = publicUrl(flags.publicUrl);
  const { defaults, settings } = await launchDefaults(flags);
  const apiKeys = serverKeys(secrets.apiKeys, settings);
  const searchUrl = serverSearchUrl(flags.searchUrl, settings);
  // The model endpoint every command uses (SVC_MODEL_BASE_URL > config model.baseURL), the server included.
  const modelBaseURL = settings.effective("model.baseURL").value as string | undefined;
  const allowNet = (flags.allowNet ?? []).map((a) => a.trim());
  try {
    new AddressPolicy(allowNet);
  } catch (e) {
    throw new ServiceInvalidArgumentError((e as Error).message, { hint: "e.g. --allow-net intranet.example:8080 or --allow-net 10.0.0.0/8" });
  }
  const modelEndpoints = flags.modelEndpoints?.map(modelEndpoint);
  const limits = limitOptions(flags as Record<string, unknown>);
  const cluster = clusterOptions({ ...flags, store: secrets.store?.values[0], clusterSecret: secrets.clusterSecret?.values[0] }, settings);
  const cacheDir = flags.cacheDir !== undefined ? resolve(flags.cacheDir) : join(stateRoot(), "server-cache");
  // The server's data (saved contexts …) and the key it is encrypted with (see src/server/isolation/data-key.ts).
  const dataDirRaw = flags.dataDir ?? (settings.effective("server.dataDir").value as string | undefined);
  const dataDir = dataDirRaw !== undefined && dataDirRaw.trim() ? resolve(dataDirRaw.trim()) : join(stateRoot(), "server-data");
  const dataKey = secrets.dataKey?.values[0] ?? (settings.effective("server.dataKey").value as string | undefined);
  if (dataKey !== undefined && dataKey.length < 16) throw new ServiceInvalidArgumentError(`${secrets.dataKey?.from ?? "--data-key"} needs at least 16 characters`);

  const say = (line: string) => {
    if (!g.json) process.stderr.write(`svc serve: ${line}\n`);
  };
  const log =
    g.verbose >= 1
      ? (line: string) => {
          if (!ANNOUNCED.test(line)) process.stderr.write(`svc serve: ${line}\n`);
        }
      : undefined;

  // Every flag is valid: say now that a secret was visible in the command line (a usage error stays one line).
  if (secrets.warning) process.stderr.write(secrets.warning);
  const { startServer } = await import("../../src/server/index.js");
  // Stopped while still starting: nothing to serve.
  if (stop.aborted) return stop.reason as NodeJS.Signals;
  const server = await startServer({
    host,
    port,
    apiKeys,
    cacheDir,
    dataDir,
    ...(dataKey !== undefined ? { dataKey } : {}),
    launch: {
      headless: defaults.headless,
      ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
      ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
    },
    ...(maxSessions !== undefined ? { maxSessions } : {}),
    ...(maxQueued !== undefined ? { maxQueued } : {}),
    ...(queueTimeoutS !== undefined ? { queueTimeoutS } : {}),
    ...(maxCpu !== undefined ? { maxCpu } : {}),
    ...(maxMemoryBytes !== undefined ? { maxMemoryBytes } : {}),
    ...(drainTimeout !== undefined ? { shutdownGraceS: drainTimeout } : {}),
    warmBrowsers,
    ...(sessionTimeoutS !== undefined ? { sessionTimeoutS } : {}),
    ...(idleTimeoutS !== undefined ? { idleTimeoutS } : {}),
    ...(bodyLimitBytes !== undefined ? { bodyLimitBytes } : {}),
    ...(url ? { publicUrl: url } : {}),
    ...(searchUrl ? { searchUrl } : {}),
    ...(flags.isolate ? { isolate: true } : {}),
    allowNet,
    ...(modelEndpoints ? { modelEndpoints } : {}),
    ...(modelBaseURL ? { modelBaseURL } : {}),
    ...(cluster ? { cluster } : {}),
    ...limits,
    ...(log ? { log } : {}),
  }).catch((e: unknown) => {
    throw listenError(e, host, port);
  });
  // A fatal error elsewhere (main.ts runs the cleanups) must still end every browser.
  const unregister = registerCleanup(() => server.close("the server is shutting down"));

  const bound = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  if (g.json) process.stdout.write(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ok: true, url: server.url, port: server.port })}\n`);
  else say(`listening on ${bound}${url ? ` (public URL ${url})` : ""}${searchUrl ? "" : "; POST /v1/search answers 501 (no --search-url)"}`);

  const signal = await new Promise<NodeJS.Signals>((resolvePromise) => {
    if (stop.aborted) return resolvePromise(stop.reason as NodeJS.Signals);
    stop.addEventListener("abort", () => resolvePromise(stop.reason as NodeJS.Signals), { once: true });
  });
  say(`stopping (${signal}): finishing requests, ending every browser`);
  await server.close(`the server is shutting down (${signal})`);
  unregister();
  say("stopped");
  return signal;
}
