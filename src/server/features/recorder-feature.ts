/**
 * The feature every platform session has: a recorder (recorder.ts) from Chrome's start to the session's end, and a
 * bounded downloads folder. What it kept stays readable for `artifactsTtlS`, then goes (a timer per session, not a
 * later sweep). Ended sessions keep at most RETAINED_MAX_BYTES of logs and recordings in memory, oldest freed first
 * (their routes then 410).
 */
import type { FeatureRun, SessionFeature, SessionStart } from "../platform/feature.js";
import { createDownloadsDir, downloadsRoot, removeDownloadsDir, sessionDownloadsDir, sweepStaleDownloads } from "./recorder-downloads.js";
import { SessionRecorder } from "./recorder.js";
import { DownloadQuota } from "./downloads-quota.js";
import type { ServerConfig } from "../config.js";

/** Memory the logs and recordings of ended sessions may hold, all together (256 MiB). */
export const RETAINED_MAX_BYTES = 256 * 1024 * 1024;

export interface SessionArtifacts {
  recorder: SessionRecorder;
  downloadsDir: string;
  /** Epoch ms when the session ended; undefined while it runs. */
  endedAt?: number;
  /** Its log and recording were freed (RETAINED_MAX_BYTES). */
  evicted?: boolean;
  timer?: NodeJS.Timeout;
}

export class SessionRecorders implements SessionFeature {
  readonly name = "session-recorder";
  private readonly kept = new Map<string, SessionArtifacts>();
  private readonly quota: DownloadQuota;

  constructor(
    private readonly config: ServerConfig,
    private readonly log: (line: string) => void,
  ) {
    sweepStaleDownloads(downloadsRoot(config));
    this.quota = new DownloadQuota(config.downloadsMaxBytesPerKey, log);
  }

  prepare(start: SessionStart): FeatureRun {
    const downloadsDir = sessionDownloadsDir(this.config, start);
    createDownloadsDir(downloadsDir);
    // A session-API start whose launch options say `acceptDownloads: false` gets none (platform/emulation.ts denies them).
    const settings = start.params.browserSettings;
    const keep = { record: settings?.recordSession !== false, log: settings?.logSession !== false };
    this.quota.open(start.id, start.owner, downloadsDir);
    const downloads = { dir: downloadsDir, maxBytes: this.config.downloadsMaxBytesPerSession, admit: (bytes: number) => this.quota.admit(start.id, bytes) };
    const recorder = new SessionRecorder(start.id, start.emulation?.acceptDownloads === false ? undefined : downloads, keep);
    this.kept.set(start.id, { recorder, downloadsDir });
    return {
      started: async (_session, browser) => {
        // Without its recorder a session still works: it only has no logs, recording or downloads.
        await recorder.start(browser.wsEndpoint).catch((e: unknown) => this.log(`session ${start.id}: its recorder did not start: ${e instanceof Error ? e.message : String(e)}`));
      },
      ending: () => recorder.close(),
      ended: async (session) => {
        await recorder.close();
        if (session) this.retire(start.id);
        else this.forget(start.id);
      },
    };
  }

  /** What was kept of session `id` (its owner checked by the caller), or undefined. */
  get(id: string): SessionArtifacts | undefined {
    return this.kept.get(id);
  }

  /** Whether session `id`'s downloads were deleted to make room for its key's newer ones (downloadsMaxBytesPerKey). */
  downloadsDropped(id: string): boolean {
    return this.quota.dropped(id);
  }

  /** The server stops: session records go with it, so do their downloads. */
  close(): void {
    for (const id of [...this.kept.keys()]) this.forget(id);
  }

  private retire(id: string): void {
    const a = this.kept.get(id);
    if (!a) return;
    a.endedAt = Date.now();
    this.quota.ended(id);
    a.timer = setTimeout(() => this.forget(id), this.config.artifactsTtlS * 1000);
    a.timer.unref();
    const ended = [...this.kept.values()].filter((k) => k.endedAt !== undefined && !k.evicted).sort((x, y) => x.endedAt! - y.endedAt!);
    let total = ended.reduce((sum, k) => sum + k.recorder.bytes, 0);
    for (const k of ended) {
      if (total <= RETAINED_MAX_BYTES) break;
      total -= k.recorder.bytes;
      k.recorder.drop();
      k.evicted = true;
    }
  }

  private forget(id: string): void {
    const a = this.kept.get(id);
    if (!a) return;
    clearTimeout(a.timer);
    this.kept.delete(id);
    this.quota.forget(id);
    a.recorder.drop();
    removeDownloadsDir(a.downloadsDir);
  }
}
