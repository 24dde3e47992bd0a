/**
 * What a platform feature adds to a session's life (contexts, extensions, logs, recordings, downloads): asked once
 * before Chrome starts (switches, a prepared profile), then told when Chrome runs, the session ends and Chrome is
 * gone. Features never reach into each other's state. The interface lives here and startServer hands the features in,
 * so platform/ imports none.
 */
import type { LaunchedBrowser } from "../../index.js";
import type { BrowserEmulation } from "../../internal.js";
import type { Owner } from "../tenant.js";
import type { PlatformSession } from "./chrome-sessions.js";
import type { SessionCreateParams } from "./create-params.js";

export interface SessionStart {
  /** The id the session will have (known before its Chrome starts). */
  id: string;
  owner: Owner;
  /** The validated `POST /v1/sessions` body. */
  params: SessionCreateParams;
  /** Whether the server isolates its tenants (config.ts isolated()). */
  isolated: boolean;
  /** Page settings of a session-API start's launch options (locale, acceptDownloads …), held by platform/emulation.ts. */
  emulation?: BrowserEmulation | undefined;
}

export interface FeatureRun {
  /** Chrome switches this session needs (after the isolation filter: the feature vouches for them). */
  args?: string[];
  /** A profile directory prepared for this session; at most one feature may give one. Never a warm Chrome. */
  userDataDir?: string;
  /** Chrome runs and the session is registered; a throw ends the session (ERROR) and fails the start. */
  started?(session: PlatformSession, browser: LaunchedBrowser): Promise<void> | void;
  /** The session ended; Chrome still runs unless it exited by itself. Bounded by ENDING_TIMEOUT_MS. */
  ending?(session: PlatformSession, browser: LaunchedBrowser): Promise<void> | void;
  /**
   * Chrome is gone (and a userDataDir given above is still on disk: the feature removes it). `session` is
   * undefined when the start failed before the session existed.
   */
  ended?(session: PlatformSession | undefined): Promise<void> | void;
}

export interface SessionFeature {
  readonly name: string;
  /** Undefined when this session does not use the feature; a thrown error (the server's NotFoundError, the library's ServiceInvalidArgumentError …) refuses the start. */
  prepare(start: SessionStart): Promise<FeatureRun | undefined> | FeatureRun | undefined;
}

/** How long all `ending` hooks of one session may take before Chrome is closed anyway. */
export const ENDING_TIMEOUT_MS = 15_000;

/** The features' runs for one session, composed: hooks run in order, a failing one is logged and skipped. */
export class FeatureRuns {
  private constructor(
    private readonly runs: { name: string; run: FeatureRun }[],
    private readonly log: (line: string) => void,
  ) {}

  /** Prepares every feature; when one refuses, those already prepared get `ended` (so nothing leaks). */
  static async prepare(features: readonly SessionFeature[], start: SessionStart, log: (line: string) => void): Promise<FeatureRuns> {
    const runs: { name: string; run: FeatureRun }[] = [];
    try {
      for (const f of features) {
        const run = await f.prepare(start);
        if (run) runs.push({ name: f.name, run });
      }
      if (runs.filter((r) => r.run.userDataDir).length > 1) throw new Error("two session features each gave a profile directory");
      return new FeatureRuns(runs, log);
    } catch (e) {
      await new FeatureRuns(runs, log).ended(undefined);
      throw e;
    }
  }

  get args(): string[] {
    return this.runs.flatMap((r) => r.run.args ?? []);
  }

  get userDataDir(): string | undefined {
    return this.runs.find((r) => r.run.userDataDir)?.run.userDataDir;
  }

  get empty(): boolean {
    return this.runs.length === 0;
  }

  /** A throw here is the caller's: the session cannot start without every feature it asked for. */
  async started(session: PlatformSession, browser: LaunchedBrowser): Promise<void> {
    for (const { run } of this.runs) await run.started?.(session, browser);
  }

  async ending(session: PlatformSession, browser: LaunchedBrowser | undefined): Promise<void> {
    if (!browser) return;
    let timer: NodeJS.Timeout | undefined;
    const all = (async () => {
      for (const { name, run } of this.runs) await this.guard(name, "ending", () => run.ending?.(session, browser));
    })();
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.log(`session ${session.id}: its features took over ${ENDING_TIMEOUT_MS / 1000}s to finish; closing Chrome anyway`);
        resolve();
      }, ENDING_TIMEOUT_MS);
      timer.unref();
    });
    await Promise.race([all, timeout]);
    clearTimeout(timer);
  }

  async ended(session: PlatformSession | undefined): Promise<void> {
    for (const { name, run } of this.runs) await this.guard(name, "ended", () => run.ended?.(session));
  }

  private async guard(name: string, hook: string, fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.log(`session feature ${name} failed in ${hook}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
