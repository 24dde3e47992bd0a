/**
 * Cloud mode of the CLI (env BROWSERBASE): which platform, with which key, and the state of its sessions.
 * The key is read from the settings every time (flag > env > stored); a session record keeps only the
 * URLs, so a key never lands in the state dir.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { PlatformSessions } from "../../src/internal.js";
import { type CloudSessionRecord, errorMessage } from "../../src/base.js";
import type { GlobalOptions } from "./output.js";
import { type SettingsStore, openSettings, parseViewport } from "./settings.js";

export type CliEnv = "LOCAL" | "BROWSERBASE";

/** The global flags plus `--env` (main.ts sets it; commands typed on GlobalOptions pass it along). */
export type CloudGlobals = GlobalOptions & { env?: string | undefined };

/** `--env` > SVC_ENV > stored `env` > LOCAL. */
export async function resolveEnv(g: CloudGlobals, settings?: SettingsStore): Promise<CliEnv> {
  const store = settings ?? (await openSettings());
  return store.effective("env", { env: g.env }).value === "BROWSERBASE" ? "BROWSERBASE" : "LOCAL";
}

export interface CloudTarget {
  apiKey: string;
  /** Session API origin. */
  apiUrl: string;
  /** Platform API origin. */
  platformUrl: string;
}

const KEY_HINT = "export BROWSERBASE_API_KEY=<key> or run svc config set browserbase.apiKey <key>";

/** The key from the settings; the URLs from the settings too, unless a session record fixes them. */
export async function cloudTarget(settings: SettingsStore, urls?: Pick<CloudTarget, "apiUrl" | "platformUrl">): Promise<CloudTarget> {
  const key = settings.effective("browserbase.apiKey").value;
  if (typeof key !== "string" || !key) throw new ServiceInvalidArgumentError("cloud mode (env BROWSERBASE) needs the platform's API key", { hint: KEY_HINT });
  if (urls) return { apiKey: key, ...urls };
  const { cloudUrls } = await import("../../src/internal.js");
  // The settings already folded in SVC_API_URL / BROWSERBASE_BASE_URL: do not let the library read them again.
  const u = cloudUrls(
    {
      apiBaseURL: settings.effective("cloud.apiUrl").value as string | undefined,
      platformBaseURL: settings.effective("cloud.platformUrl").value as string | undefined,
    },
    {},
  );
  return { apiKey: key, apiUrl: u.api, platformUrl: u.platform };
}

/** Local launch flags mean nothing to a cloud browser: say so rather than ignore them. */
export function rejectLocalFlags(flags: { headed?: boolean; executablePath?: string; idleTimeout?: string }, what: string): void {
  for (const [flag, set] of [["--headed", flags.headed], ["--executable-path", flags.executablePath], ["--idle-timeout", flags.idleTimeout]] as const) {
    if (set !== undefined && set !== false) throw new ServiceInvalidArgumentError(`${flag} applies to a local browser, not to ${what}`, { hint: "use --env LOCAL for a browser on this machine" });
  }
}

/** `--viewport` > SVC_VIEWPORT > stored `browser.viewport`, for the platform's browserSettings. */
export function cloudViewport(settings: SettingsStore, flag: string | undefined): { width: number; height: number } | undefined {
  if (flag !== undefined) return parseViewport(flag, "--viewport");
  const v = settings.effective("browser.viewport").value;
  return typeof v === "string" ? parseViewport(v) : undefined;
}

export async function platformClient(t: Pick<CloudTarget, "apiKey" | "platformUrl">): Promise<PlatformSessions> {
  const { ApiClient, PlatformSessions } = await import("../../src/internal.js");
  return new PlatformSessions(new ApiClient({ baseURL: t.platformUrl, apiKey: t.apiKey }));
}

/** running: usable; gone: the platform no longer runs it (record may go); unknown: could not ask. */
export type CloudStatus = { status: "running" } | { status: "gone"; detail: string } | { status: "unknown"; detail: string };

export async function cloudStatus(record: CloudSessionRecord, settings: SettingsStore): Promise<CloudStatus> {
  let platform: PlatformSessions;
  try {
    platform = await platformClient(await cloudTarget(settings, record));
  } catch (e) {
    return { status: "unknown", detail: errorMessage(e) };
  }
  try {
    const s = await platform.get(record.id);
    return s.status === "RUNNING" ? { status: "running" } : { status: "gone", detail: `the platform reports it ${s.status.toLowerCase()}` };
  } catch (e) {
    if ((e as { code?: unknown }).code === "CLOUD_SESSION_NOT_FOUND") return { status: "gone", detail: "the platform no longer knows it" };
    return { status: "unknown", detail: errorMessage(e) };
  }
}

/**
 * Status of many records with one `GET /v1/sessions?status=RUNNING` per platform: a record whose id is
 * not among the running sessions is gone.
 */
export async function cloudStatuses(records: readonly CloudSessionRecord[], settings: SettingsStore): Promise<Map<string, CloudStatus>> {
  const out = new Map<string, CloudStatus>();
  const byPlatform = new Map<string, CloudSessionRecord[]>();
  for (const r of records) byPlatform.set(r.platformUrl, [...(byPlatform.get(r.platformUrl) ?? []), r]);
  await Promise.all(
    [...byPlatform].map(async ([platformUrl, group]) => {
      let running: Set<string>;
      try {
        const platform = await platformClient(await cloudTarget(settings, { apiUrl: "", platformUrl }));
        running = new Set((await platform.list("RUNNING")).map((s) => s.id));
      } catch (e) {
        for (const r of group) out.set(r.id, { status: "unknown", detail: errorMessage(e) });
        return;
      }
      for (const r of group) out.set(r.id, running.has(r.id) ? { status: "running" } : { status: "gone", detail: "not among the platform's running sessions" });
    }),
  );
  return out;
}
