/**
 * The feature of an isolated server that keeps svc's watch (target-watch.ts) on each session's Chrome, from after its
 * extensions load, before any tenant connects, until the end. A watch that cannot start fails the start: without one
 * the CDP proxy lets no tenant in. A tenant tab that reached Chrome's own pages before svc could stop it gets the
 * session's Chrome killed.
 */
import type { FeatureRun, SessionFeature, SessionStart } from "../platform/feature.js";
import { TargetWatch } from "./target-watch.js";

export class TargetWatches implements SessionFeature {
  readonly name = "target-watch";
  private readonly watches = new Map<string, TargetWatch>();

  constructor(
    private readonly ownExtensions: (sessionId: string) => readonly string[],
    private readonly log: (line: string) => void,
  ) {}

  /** svc's watch on session `sessionId`'s Chrome, while it runs. */
  watchOf(sessionId: string): TargetWatch | undefined {
    return this.watches.get(sessionId);
  }

  prepare(start: SessionStart): FeatureRun | undefined {
    if (!start.isolated) return undefined;
    const stop = async () => {
      const watch = this.watches.get(start.id);
      this.watches.delete(start.id);
      await watch?.close();
    };
    return {
      started: async (_session, browser) => {
        const onLate = () => {
          // Killed, not closed: nothing the tenant set in motion in that page may finish. The session ends
          // as Chrome exits (platform/chrome-sessions.ts notices it).
          try {
            process.kill(browser.pid, "SIGKILL");
          } catch {
            // already gone
          }
        };
        const watch = await TargetWatch.start(browser.wsEndpoint, { sessionId: start.id, ownExtensions: () => this.ownExtensions(start.id), log: this.log, onLate });
        this.watches.set(start.id, watch);
      },
      ending: stop,
      ended: stop,
    };
  }
}
