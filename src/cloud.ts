/**
 * env BROWSERBASE: a platform session (created, or resumed with `browserbaseSessionID`) reached over its connectUrl.
 * Operations run on the session API (RemoteBackend) or, with `useAPI: false` or a custom `llmClient` (which cannot
 * travel), in this process over CDP (LocalBackend). With only the session API's origin given, the platform is assumed
 * on the same origin, as `svc serve` offers both.
 */
import type { BackendSetup, ServiceBackend } from "./backend.js";
import { openBrowser } from "./browser/connect.js";
import { BrowserbaseSessionNotFoundError, errorMessage, MissingEnvironmentVariableError } from "./errors.js";
import { LocalBackend } from "./local/backend.js";
import { ApiClient } from "./platform/http.js";
import { SessionApi } from "./platform/session-api.js";
import { PlatformSessions, type PlatformSession } from "./platform/session-client.js";
import { RemoteBackend } from "./remote/backend.js";
import { DEFAULT_PLATFORM_URL } from "./platform/web.js";

export { DEFAULT_PLATFORM_URL };

const DEFAULT_API_URL = "https://api.stagehand.browserbase.com";

export interface CloudUrls {
  api: string;
  platform: string;
}

export function cloudUrls(o: { apiBaseURL?: string | undefined; platformBaseURL?: string | undefined }, env: NodeJS.ProcessEnv = process.env): CloudUrls {
  const api = o.apiBaseURL ?? (env.SVC_API_URL?.trim() || undefined);
  const platform = o.platformBaseURL ?? (env.BROWSERBASE_BASE_URL?.trim() || undefined);
  return { api: api ?? platform ?? DEFAULT_API_URL, platform: platform ?? api ?? DEFAULT_PLATFORM_URL };
}

function cloudApiKey(apiKey: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const key = apiKey ?? (env.BROWSERBASE_API_KEY?.trim() || undefined);
  if (!key) throw new MissingEnvironmentVariableError('env "BROWSERBASE" needs an API key: set BROWSERBASE_API_KEY or pass apiKey');
  return key;
}

export async function openCloudBackend(setup: BackendSetup): Promise<ServiceBackend> {
  const { opts, log } = setup;
  const raw = opts.raw;
  const apiKey = cloudApiKey(raw.apiKey);
  const urls = cloudUrls(raw);
  const platformApi = new ApiClient({ baseURL: urls.platform, apiKey });
  const platform = new PlatformSessions(platformApi);

  let session: PlatformSession;
  const resumed = raw.browserbaseSessionID;
  if (resumed) {
    session = await platform.get(resumed);
    if (session.status !== "RUNNING") throw new BrowserbaseSessionNotFoundError(`cloud session ${resumed} is ${session.status.toLowerCase()}, not running`, { hint: "start a new one (omit browserbaseSessionID)" });
    log.info("init", "resuming cloud session", { sessionId: session.id });
  } else {
    // keepAlive overrides the same key in the create params (docs/wire-formats.md "Construction options"); the older generation's projectId
    // is the session's project unless the create params name one.
    session = await platform.create({ ...(raw.projectId ? { projectId: raw.projectId } : {}), ...raw.browserbaseSessionCreateParams, keepAlive: opts.keepAlive });
    log.info("init", "created cloud session", { sessionId: session.id });
  }
  const release = async (force: boolean) => {
    if (opts.keepAlive && !force) return;
    await platform.release(session.id).catch((e: unknown) => log.error("close", "could not release the cloud session", { sessionId: session.id, error: errorMessage(e) }));
  };
  try {
    const debug = await platform.debug(session.id).catch(() => undefined);
    const cloud = { id: session.id, url: `${platformApi.baseURL}/v1/sessions/${session.id}`, debugUrl: debug?.debuggerFullscreenUrl ?? session.connectUrl };
    const init = { sessionId: session.id, sessionUrl: cloud.url, debugUrl: cloud.debugUrl };
    const browser = await openBrowser({ cdpUrl: session.connectUrl, domSettleTimeout: opts.domSettleTimeout, urlPolicy: raw.urlPolicy, dialogPolicy: opts.dialogPolicy });
    const useApi = raw.useAPI !== false && raw.llmClient === undefined;
    if (!useApi) return new LocalBackend({ ...setup, browser, init, cloud, onClose: ({ force }) => release(force) });
    const api = new SessionApi(new ApiClient({ baseURL: urls.api, apiKey }));
    return await RemoteBackend.start({ ...setup, api, browser, init, cloud, release });
  } catch (e) {
    if (!resumed) await release(true);
    throw e;
  }
}
