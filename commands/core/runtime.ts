/**
 * What the browser-using commands share: the state dir, finding the session to use, opening a Service
 * on it (or on a one-shot browser), and recording each command's history and metrics afterwards.
 * In cloud mode (env BROWSERBASE, or a cloud session) the Service runs remotely; see cloud.ts.
 * The library is imported lazily so that `svc --help` and `svc config` never load it.
 */
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Service, ServiceOptions } from "../../src/index.js";
import { ServiceBrowserNotFoundError, ServiceError, ServiceInvalidArgumentError, ServiceSessionNotFoundError, ServiceTimeoutError } from "../../src/base.js";
import { addMetrics, appendHistory, type CloudSessionRecord, contextScope, DEFAULT_LOG_ID, defaultDownloadsDir, ensureStateDir, errorMessage, isCloud, resolveStateDir, sessionDialogAnswer, sessionOwnTabs, sessionRefStore, sessionSecretStore, sessionTabStore, type StoredHistoryEntry, type StoredSession, touchHeartbeat, touchSession, within } from "../../src/base.js";
import { withCallUsage } from "./call-usage.js";
import { commandSignal, registerCleanup } from "./cleanup.js";
import { phase } from "./phases.js";
import { forget, keep, keepsService, keptKey, takeKept } from "../host/service.js";
import { type CloudGlobals, cloudTarget, cloudViewport, rejectLocalFlags, resolveEnv } from "./cloud.js";
import type { GlobalOptions, Output } from "./output.js";
import { rememberTabs, restoreSelectedTab } from "./tabs.js";
import { createOutput } from "./output.js";
import { type SettingValue, type SettingsStore, openSettings, parseSetting, parseViewport, settingDef } from "./settings.js";

export type Library = typeof import("../../src/index.js");

export function loadLibrary(): Promise<Library> {
  return import("../../src/index.js");
}

/** The state root, created (0700) and checked writable before anything is launched. */
export function stateRoot(): string {
  return ensureStateDir(resolveStateDir());
}

export function output(g: GlobalOptions): Output {
  return createOutput(g);
}

import { liveOrGone, resolveSession } from "./session-lookup.js";

export { discardSession, resolveSession } from "./session-lookup.js";

/** Launch defaults from flags > env > stored config > built-in defaults. */
export interface LaunchFlags {
  headed?: boolean;
  viewport?: string;
  executablePath?: string;
}

export interface LaunchDefaults {
  headless: boolean;
  executablePath: string | undefined;
  viewport: { width: number; height: number } | undefined;
}

export async function launchDefaults(flags: LaunchFlags, extraFlags: Record<string, SettingValue | undefined> = {}, store?: SettingsStore) {
  const flagValues: Record<string, SettingValue | undefined> = {
    "browser.headless": flags.headed ? false : undefined,
    "browser.executablePath": flags.executablePath !== undefined ? parseSetting(settingDef("browser.executablePath"), flags.executablePath, "--executable-path") : undefined,
    "browser.viewport": flags.viewport !== undefined ? parseSetting(settingDef("browser.viewport"), flags.viewport, "--viewport") : undefined,
    ...extraFlags,
  };
  const settings = store ?? (await openSettings());
  const value = (key: string) => settings.effective(key, flagValues).value;
  const viewport = value("browser.viewport");
  const exe = settings.effective("browser.executablePath", flagValues);
  const defaults: LaunchDefaults = {
    headless: value("browser.headless") !== false,
    executablePath: exe.value as string | undefined,
    viewport: typeof viewport === "string" ? parseViewport(viewport) : undefined,
  };
  if (defaults.executablePath !== undefined) {
    const from = exe.source === "flag" ? "--executable-path" : exe.source === "env" ? exe.envVar : "config browser.executablePath";
    checkExecutable(defaults.executablePath, from ?? "CHROME_PATH");
  }
  return { defaults, settings, value };
}

const INSTALL_HINT = "install Chromium (Debian/Ubuntu: apt-get install -y chromium; macOS: brew install --cask chromium) or point CHROME_PATH / --executable-path at Chrome";

/** A missing or non-executable Chrome path is reported before anything is launched or created. */
function checkExecutable(path: string, from: string): void {
  let ok = false;
  try {
    ok = statSync(path).isFile();
    accessSync(path, constants.X_OK);
  } catch {
    ok = false;
  }
  if (!ok) throw new ServiceBrowserNotFoundError(`no Chrome executable at ${path} (from ${from})`, { hint: INSTALL_HINT });
}

interface Recorded {
  /** Where history and metrics go: a session id, or "default" for one-shot runs. */
  logId: string;
  root: string;
}

/** What a command measured around its work, to give each history entry its own tokens and time. */
interface Measured {
  before: Readonly<Record<string, unknown>>;
  startedAt: number;
  /** The Service's history before the command (a kept Service's holds earlier commands' entries). */
  historyLength: number;
}

/** Append what the Service did to the log and add its metrics; never masks the command's own error. */
async function record(svc: Service, target: Recorded, extra: StoredHistoryEntry[], measured: Measured, out: Output): Promise<void> {
  try {
    const after = (await svc.metrics) as unknown as Record<string, unknown>;
    const entries: StoredHistoryEntry[] = withCallUsage((await svc.history).slice(measured.historyLength) as unknown as StoredHistoryEntry[], measured.before, after, measured.startedAt);
    for (const e of extra) if (!entries.some((x) => x.method === e.method)) entries.push(e);
    appendHistory(target.logId, entries, target.root);
    const spent: Record<string, number> = {};
    for (const [k, v] of Object.entries(after)) if (typeof v === "number") spent[k] = v - (Number(measured.before[k]) || 0);
    addMetrics(target.logId, spent, target.root);
  } catch (e) {
    out.log(1, `could not record history/metrics: ${(e as Error).message}`);
  }
}

/** Constructor options a command may add (the model-backed commands' `--cache-dir`). */
export interface ServiceExtras {
  cacheDir?: string;
  /** SearXNG for the agent's search tool (local runs; a cloud run uses its server's backend). */
  searchUrl?: string;
  /**
   * The command's --timeout (ms): it bounds attaching to the session too (else DEFAULT_ATTACH_TIMEOUT_MS does).
   * A page that never yields (a script looping on alert()/confirm(), answered as fast as it asks) does not
   * answer the attach's calls.
   */
  timeoutMs?: number;
}

function logger(out: Output) {
  return (line: { category?: string; message: string; level?: number }) => {
    const level = typeof line.level === "number" ? line.level : 1;
    if (level <= out.verbose && out.verbose > 0) process.stderr.write(`svc${line.category ? `[${line.category}]` : ""}: ${line.message}\n`);
  };
}

export interface RunContext {
  svc: Service;
  out: Output;
  /** The session used, when not one-shot. */
  session: StoredSession | undefined;
  /** Record a history entry unless the library already recorded one with that method. */
  note(entry: Omit<StoredHistoryEntry, "timestamp">): void;
}

/** `--cache-dir` is the local browser's cache; a cloud server keeps its own. */
function checkCloudExtras(extras: ServiceExtras): void {
  if (extras.cacheDir) throw new ServiceInvalidArgumentError("--cache-dir applies to a local browser; a cloud server keeps its own cache");
}

/** Remote mode on an existing cloud session: keepAlive, so closing this Service only disconnects. */
async function cloudSessionOptions(session: CloudSessionRecord, extras: ServiceExtras): Promise<ServiceOptions> {
  checkCloudExtras(extras);
  const t = await cloudTarget(await openSettings(), session);
  return { env: "BROWSERBASE", apiKey: t.apiKey, apiBaseURL: t.apiUrl, platformBaseURL: t.platformUrl, browserbaseSessionID: session.id, keepAlive: true };
}

/**
 * How long attaching to a session may take when the command has no --timeout of its own (EXIT_CODES.md:
 * TIMEOUT). A healthy page answers in well under a second; one whose script never yields never answers.
 */
const DEFAULT_ATTACH_TIMEOUT_MS = 30_000;

/** `svc.init()`, or a TIMEOUT once `timeoutMs` (else the default bound) passed (the caller's cleanup then disconnects). */
async function initWithin(svc: { init(): Promise<unknown> }, timeoutMs: number = DEFAULT_ATTACH_TIMEOUT_MS, sessionId: string): Promise<void> {
  const init = svc.init();
  init.catch(() => {});
  await within(init, timeoutMs, () =>
    new ServiceTimeoutError(`attaching to session ${sessionId} did not finish within ${timeoutMs} ms: its page does not answer (a script that never yields, such as a dialog loop)`, { hint: "svc tabs, or stop the session" }),
  );
}

/** Run `fn` against the resolved session's browser (`resolved`: one the caller already found alive); Chrome keeps running afterwards. */
export async function withSession<T>(g: GlobalOptions, fn: (ctx: RunContext) => Promise<T>, extras: ServiceExtras = {}, resolved?: StoredSession): Promise<T> {
  phase("command-loaded");
  const out = output(g);
  const root = stateRoot();
  const libPromise = loadLibrary();
  libPromise.catch(() => {});
  let session = resolved ?? (await resolveSession(root, g.session));
  session = touchSession(session, root);
  if (g.downloads !== undefined) {
    // The folder is the session's Chrome's preference, set when it started: it cannot move per command.
    const own = isCloud(session) ? undefined : (session.downloadsDir ?? defaultDownloadsDir(root, session.id));
    if (own !== resolve(g.downloads)) {
      throw new ServiceInvalidArgumentError(`--downloads applies to a new session or a one-shot browser; session ${session.id} saves its downloads ${own ? `in ${own}` : "on its platform"}`, {
        hint: "svc sessions start --downloads DIR, or --new for a one-shot browser",
      });
    }
  }
  const where: ServiceOptions = isCloud(session)
    ? await cloudSessionOptions(session, extras)
    : {
        env: "LOCAL",
        // No viewport: the session's host holds its pages' size (host/emulation.ts); a command's own would end with it.
        localBrowserLaunchOptions: { cdpUrl: session.wsEndpoint, downloadsPath: session.downloadsDir ?? defaultDownloadsDir(root, session.id) },
        // Refs printed by one command (svc extract) name the same elements in the next (svc act).
        refStore: sessionRefStore(session.id, root),
        // A user's own Chrome (`svc connect --auto`): only the tabs the session created are its to drive.
        ...(session.ownTabs ? { tabScope: sessionOwnTabs(session.id, root) } : session.browserContextId ? { tabScope: contextScope(session.browserContextId) } : {}),
        ...(g.dialog ?? session.dialog ? { dialogPolicy: g.dialog ?? session.dialog } : {}),
        ...(extras.cacheDir ? { cacheDir: extras.cacheDir } : {}),
        ...(extras.searchUrl ? { searchUrl: extras.searchUrl } : {}),
      };
  const lib = await libPromise;
  phase("library-loaded");
  // A session's host keeps its Service from one command to the next (host/service.ts): no attach per command.
  const keeping = keepsService() && !isCloud(session);
  const key = keeping ? keptKey(where, g.verbose) : "";
  const reused = keeping ? takeKept(key) : undefined;
  const svc = reused ?? new lib.Service({ ...where, verbose: g.verbose, logger: logger(out) });
  // Values given to earlier commands of this session (the page may still show them) stay masked here.
  const secrets = sessionSecretStore(session.id, root);
  for (const x of secrets.load()) svc.secrets.add(x.name, x.value);
  // On Ctrl-C: disconnect only. The session's Chrome is meant to outlive this command.
  const unregister = registerCleanup(() => {
    forget(svc);
    return svc.close();
  });
  // A command running longer than the idle timeout must not have its browser reaped under it.
  const local = isCloud(session) ? undefined : session;
  const heartbeat = local
    ? setInterval(() => {
        try {
          touchHeartbeat(local.heartbeatFile, false);
        } catch {
          // the session was ended meanwhile; the command will fail on its own
        }
      }, Math.max(1_000, Math.min(30_000, Math.floor(local.idleMs / 3))))
    : undefined;
  heartbeat?.unref();
  const extra: StoredHistoryEntry[] = [];
  let measured: Measured = { before: {}, startedAt: Date.now(), historyLength: 0 };
  // The session's selected tab (svc tabs, or the page the last command ended on) is the page driven here.
  const tabs = sessionTabStore(session.id, root);
  let initialized = false;
  // The attach is still waiting on the page: nothing to record, and close() would wait for it (the
  // connection ends with this process; the session's Chrome is left running).
  let attachTimedOut = false;
  let succeeded = false;
  try {
    if (reused) {
      svc.context.dialogs.claim();
      phase("reused");
    } else {
      await initWithin(svc, extras.timeoutMs, session.id).catch((e: unknown) => {
        if (e instanceof ServiceTimeoutError) attachTimedOut = true;
        throw e;
      });
      phase("attached");
    }
    initialized = true;
    // `svc dialog` may have left the answer for the session's next dialog: taken when one opens.
    if (local) {
      const stored = sessionDialogAnswer(local.id, root);
      svc.context.dialogs.answerFrom(() => stored.take());
    }
    restoreSelectedTab(svc, tabs, out);
    measured = { before: (await svc.metrics) as unknown as Record<string, unknown>, startedAt: Date.now(), historyLength: (await svc.history).length };
    // Interrupted (the host's client went away): this command ends now; its work stops at its next call to
    // the page, whose connection the cleanups closed.
    const result = await untilInterrupted(fn({ svc, out, session, note: (e) => extra.push({ ...e, timestamp: new Date().toISOString() }) }));
    succeeded = true;
    return result;
  } finally {
    if (initialized) rememberTabs(svc, tabs, out);
    try {
      secrets.save(svc.secrets.entries());
    } catch (e) {
      process.stderr.write(`svc: this command's secrets were not kept for the session's next commands: ${errorMessage(e)}\n`);
    }
    phase("done");
    // From here the session's host answers (and records) the page's dialogs: one this command
    // answered after its history was written would be in no record.
    if (initialized && local) await svc.context.dialogs.release();
    if (!attachTimedOut) await record(svc, { logId: session.id, root }, extra, measured, out);
    phase("recorded");
    if (heartbeat) clearInterval(heartbeat);
    if (keeping && succeeded) keep(svc, key);
    else {
      forget(svc);
      if (!attachTimedOut) await svc.close().catch(() => {});
    }
    phase("detached");
    unregister();
    try {
      touchSession(session, root);
    } catch {
      // the session may have been ended meanwhile
    }
  }
}

/** A one-shot browser here, or in cloud mode a new cloud session (released when the command ends). */
async function oneShotOptions(g: CloudGlobals, flags: LaunchFlags, extras: ServiceExtras, root: string): Promise<ServiceOptions> {
  const settings = await openSettings();
  if ((await resolveEnv(g, settings)) === "BROWSERBASE") {
    rejectLocalFlags(flags, "a cloud browser");
    checkCloudExtras(extras);
    const t = await cloudTarget(settings);
    const viewport = cloudViewport(settings, flags.viewport);
    return {
      env: "BROWSERBASE",
      apiKey: t.apiKey,
      apiBaseURL: t.apiUrl,
      platformBaseURL: t.platformUrl,
      ...(viewport ? { browserbaseSessionCreateParams: { browserSettings: { viewport } } } : {}),
    };
  }
  const { defaults } = await launchDefaults(flags, {}, settings);
  return {
    env: "LOCAL",
    localBrowserLaunchOptions: {
      headless: defaults.headless,
      ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
      ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      downloadsPath: g.downloads !== undefined ? resolve(g.downloads) : defaultDownloadsDir(root, undefined),
    },
    ...(g.dialog ? { dialogPolicy: g.dialog } : {}),
    ...(extras.cacheDir ? { cacheDir: extras.cacheDir } : {}),
    ...(extras.searchUrl ? { searchUrl: extras.searchUrl } : {}),
  };
}

/** Run `fn` on a browser launched for this command only (closed at the end, also on Ctrl-C). */
export async function withOneShot<T>(g: CloudGlobals, flags: LaunchFlags, fn: (ctx: RunContext) => Promise<T>, extras: ServiceExtras = {}): Promise<T> {
  const out = output(g);
  const root = stateRoot();
  const [where, lib] = await Promise.all([oneShotOptions(g, flags, extras, root), loadLibrary()]);
  const svc = new lib.Service({ ...where, verbose: g.verbose, logger: logger(out) });
  // On Ctrl-C while Chrome is still starting, wait for the launch to settle: closing before init()
  // resolves would find no browser to close and leave the half-launched one behind.
  let starting: Promise<unknown> | undefined;
  const unregister = registerCleanup(async () => {
    await starting?.catch(() => {});
    await svc.close({ force: true });
  });
  const extra: StoredHistoryEntry[] = [];
  let initialized = false;
  let measured: Measured = { before: {}, startedAt: Date.now(), historyLength: 0 };
  try {
    starting = svc.init();
    await starting;
    initialized = true;
    measured = { before: (await svc.metrics) as unknown as Record<string, unknown>, startedAt: Date.now(), historyLength: 0 };
    return await fn({ svc, out, session: undefined, note: (e) => extra.push({ ...e, timestamp: new Date().toISOString() }) });
  } finally {
    if (initialized) await record(svc, { logId: DEFAULT_LOG_ID, root }, extra, measured, out);
    await svc.close({ force: true }).catch(() => {});
    const downloads = (where.localBrowserLaunchOptions as { downloadsPath?: string } | undefined)?.downloadsPath;
    if (downloads) (await import("../../src/internal.js")).pruneEmptyDownloads(downloads);
    unregister();
  }
}

/**
 * Where a command that drives a page runs: the `--session` one; else the current live session (the most
 * recently used one that is alive); a browser for this command only when there is none, or with `--new`.
 */
export async function withLiveOrOneShot<T>(g: CloudGlobals, flags: LaunchFlags & { new?: boolean }, fn: (ctx: RunContext) => Promise<T>, extras: ServiceExtras = {}, announce?: (target: RunTarget) => void): Promise<T> {
  if (g.session !== undefined) {
    if (flags.new) throw new ServiceInvalidArgumentError("--new and --session exclude each other", { hint: "--new runs on a browser of its own; --session on that session's" });
    announce?.({ session: g.session });
    return withSession(g, fn, extras);
  }
  const live = flags.new ? undefined : (await liveOrGone(stateRoot())).live;
  const fits = live && runsIn(live, g.env) ? live : undefined;
  announce?.(fits ? { session: fits.name ?? fits.id } : { cloud: (await resolveEnv(g)) === "BROWSERBASE" });
  return fits ? withSession(g, fn, extras, fits) : withOneShot(g, flags, fn, extras);
}

/**
 * Where a command that needs a session runs (`svc open`, `svc goto`): the `--session` one; else the current
 * live session; else a session started now with the configured defaults (said on stderr), kept afterwards.
 */
export async function withSessionOrStart<T>(g: CloudGlobals, command: string, fn: (ctx: RunContext) => Promise<T>, extras: ServiceExtras = {}): Promise<T> {
  if (g.session !== undefined) return withSession(g, fn, extras);
  const { live, gone } = await liveOrGone(stateRoot());
  if (live && runsIn(live, g.env)) return withSession(g, fn, extras, live);
  const id = await (await import("../sessions/sessions.js")).startForCommand(g, command, gone);
  return withSession({ ...g, session: id }, fn, extras);
}

/** Whether a live session fits an explicit `--env`: `--env BROWSERBASE` never means the local live Chrome. */
function runsIn(live: StoredSession, env: string | undefined): boolean {
  if (env === undefined) return true;
  return (live.kind === "cloud") === (env === "BROWSERBASE");
}

/** Where withLiveOrOneShot is about to run, told before the wait (a live view says what it waits for). */
export type RunTarget = { session: string; cloud?: undefined } | { session?: undefined; cloud: boolean };

/** The one URL helper lives in url.ts; re-exported for the commands that import it from here. */
export { checkUrl } from "./url.js";

/** `work`, or an error as soon as the command is interrupted (commands/core/cleanup.ts). */
function untilInterrupted<T>(work: Promise<T>): Promise<T> {
  const signal = commandSignal();
  if (signal.aborted) work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      work.catch(() => {});
      reject(new ServiceError("interrupted"));
    };
    signal.addEventListener("abort", stop, { once: true });
    if (signal.aborted) stop();
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
