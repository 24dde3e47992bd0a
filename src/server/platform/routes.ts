/**
 * Platform API routes (docs/wire-formats.md "Platform API"): browser sessions as Browserbase's SDK sees them
 * (their debug URLs are the live view's: live/routes-debug.ts; the CDP proxy's HTTP side is cdp/routes.ts).
 * Responses carry no envelope (the SDK reads the objects directly).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Env, ServerDeps } from "../app.js";
import { parseBody } from "../http/body.js";
import { remoteSessionList } from "../cluster/index.js";
import { HttpError } from "../http/errors.js";
import { parseWith } from "../failures.js";
import { createOnlyFields } from "./wire.js";
import { SESSION_STATUSES, SessionCreateParamsSchema, type PlatformSession } from "./chrome-sessions.js";

const UpdateSchema = z.looseObject({
  status: z.literal("REQUEST_RELEASE", { error: 'expected "REQUEST_RELEASE"' }),
  projectId: z.string().optional(),
});

const ListQuerySchema = z.looseObject({
  status: z.enum(SESSION_STATUSES).optional(),
  q: z.string().max(1000).optional(),
});

export function platformRoutes(deps: ServerDeps): Hono<Env> {
  const { platform } = deps;
  const app = new Hono<Env>();

  app.post("/sessions", async (c) => {
    const params = await parseBody(c, SessionCreateParamsSchema);
    const session = await platform.create(c.get("owner"), params, undefined, undefined, c.req.raw.signal);
    return c.json({ ...platform.toWire(session), ...createOnlyFields(deps.publicUrl(), session.id) }, 201);
  });

  app.get("/sessions", async (c) => {
    const query = parseWith(ListQuerySchema, c.req.query(), "query");
    const matches = query.q ? metadataFilter(query.q) : () => true;
    const sessions = platform.list(c.get("owner"), query.status).filter((s) => matches(s));
    const wire = sessions.map((s) => platform.toWire(s));
    // A cluster lists the key's sessions on every replica (each applies the same query to its own).
    if (deps.cluster) wire.push(...(await remoteSessionList(deps.cluster, c, c.get("owner"), query.status, query.q !== undefined)));
    return c.json(wire);
  });

  app.get("/sessions/:id", (c) => c.json(platform.toWire(platform.get(c.get("owner"), c.req.param("id")))));

  app.post("/sessions/:id", async (c) => {
    const owner = c.get("owner");
    const id = c.req.param("id");
    platform.get(owner, id); // 404 before 400: another key's session does not exist for this one
    await parseBody(c, UpdateSchema);
    return c.json(platform.toWire(platform.release(owner, id)));
  });

  return app;
}

/**
 * Browserbase's metadata query: `user_metadata['key']:'value'` terms (nested keys as more brackets),
 * joined by AND. Anything else is a 400 rather than a silently ignored filter.
 */
function metadataFilter(q: string): (s: PlatformSession) => boolean {
  const term = /user_metadata((?:\['[^']*'\])+)\s*:\s*'([^']*)'/g;
  const terms: { path: string[]; value: string }[] = [];
  const leftover = q.replace(term, (_m, keys: string, value: string) => {
    terms.push({ path: [...keys.matchAll(/\['([^']*)'\]/g)].map((k) => k[1] ?? ""), value });
    return " ";
  });
  if (!terms.length || leftover.replace(/\bAND\b/gi, "").trim()) {
    throw new HttpError(400, "query.q: expected user_metadata['key']:'value' terms joined by AND");
  }
  return (s) =>
    terms.every(({ path, value }) => {
      let v: unknown = s.userMetadata;
      for (const k of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
      return v !== undefined && String(v) === value;
    });
}
