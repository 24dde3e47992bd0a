/**
 * The SDK's projects routes. An API key is one project, its id the key's fingerprint; another id is a 404.
 * `browserMinutes` sums the key's sessions since start, each rounded up to a minute as the platform bills (ended ones
 * from UsageMeter, running ones to now); `proxyBytes` is 0, since svc runs no paid proxy.
 */
import { Hono } from "hono";
import type { Env, ServerDeps } from "../app.js";
import type { Owner } from "../tenant.js";
import { HttpError } from "../http/errors.js";
import type { PlatformSession } from "./chrome-sessions.js";
import type { SessionFeature } from "./feature.js";
import { clip } from "../../util/zod.js";

const MINUTE_MS = 60_000;

/** A session's browser minutes: its lifetime so far, rounded up to a whole minute. */
function minutesOf(s: PlatformSession, now: number): number {
  return Math.max(1, Math.ceil(((s.endedAt ?? now) - s.startedAt) / MINUTE_MS));
}

/** Browser minutes of ended sessions per key, kept for the server's life (the session list forgets them after an hour). */
export class UsageMeter implements SessionFeature {
  readonly name = "usage";
  readonly startedAt = Date.now();
  private readonly ended = new Map<Owner, number>();

  prepare(): { ended(session: PlatformSession | undefined): void } {
    return {
      ended: (session) => {
        if (session) this.ended.set(session.owner, (this.ended.get(session.owner) ?? 0) + minutesOf(session, Date.now()));
      },
    };
  }

  /** Ended sessions' minutes plus those of `running` (the key's sessions still RUNNING). */
  minutes(owner: Owner, running: readonly PlatformSession[]): number {
    const now = Date.now();
    return (this.ended.get(owner) ?? 0) + running.reduce((sum, s) => sum + minutesOf(s, now), 0);
  }
}

export function projectRoutes(deps: ServerDeps, usage: UsageMeter): Hono<Env> {
  const { config, platform } = deps;
  const app = new Hono<Env>();
  const created = new Date(usage.startedAt).toISOString();
  const project = (owner: Owner) => ({
    id: owner,
    name: `svc ${owner}`,
    ownerId: owner,
    concurrency: config.maxSessions,
    defaultTimeout: config.sessionTimeoutS,
    createdAt: created,
    updatedAt: created,
  });
  const own = (owner: Owner, id: string) => {
    if (id !== owner) throw new HttpError(404, `project ${clip(id)} not found`);
    return project(owner);
  };

  app.get("/projects", (c) => c.json([project(c.get("owner"))]));
  app.get("/projects/:id", (c) => c.json(own(c.get("owner"), c.req.param("id"))));
  app.get("/projects/:id/usage", (c) => {
    const owner = c.get("owner");
    own(owner, c.req.param("id"));
    return c.json({ browserMinutes: usage.minutes(owner, platform.list(owner, "RUNNING")), proxyBytes: 0 });
  });
  return app;
}
