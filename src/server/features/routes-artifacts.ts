/**
 * What a platform session left, as the SDK reads it: …/logs, …/recording (rrweb events), …/downloads (a zip).
 * Readable while the session runs and for `artifactsTtlS` after (then 404); downloads deleted to make room under the
 * key's total are a 410; another key's session is a 404.
 */
import { Hono } from "hono";
import type { Env, ServerDeps } from "../app.js";
import { HttpError } from "../http/errors.js";
import type { SessionArtifacts } from "./recorder-feature.js";
import { RETAINED_MAX_BYTES } from "./recorder-feature.js";
import { zipDownloads } from "./recorder-downloads.js";

export function sessionArtifactRoutes(deps: ServerDeps): Hono<Env> {
  const app = new Hono<Env>();

  const artifacts = (owner: string, id: string, what: "logs" | "recording" | "downloads"): SessionArtifacts => {
    const session = deps.platform.get(owner, id); // 404 for an unknown session or another key's
    const a = deps.recorders?.get(session.id);
    if (!a) throw new HttpError(404, `session ${session.id} has no ${what} on this server`);
    if (a.evicted && what !== "downloads") throw new HttpError(410, `the ${what} of session ${session.id} were dropped: the server keeps at most ${RETAINED_MAX_BYTES} bytes of ended sessions' logs and recordings`);
    if (what === "downloads" && deps.recorders?.downloadsDropped(session.id)) {
      throw new HttpError(410, `the downloads of session ${session.id} were deleted to make room for newer ones: an API key keeps at most ${deps.config.downloadsMaxBytesPerKey} bytes of downloads (--downloads-max-key)`);
    }
    return a;
  };

  app.get("/sessions/:id/logs", (c) => c.json(artifacts(c.get("owner"), c.req.param("id"), "logs").recorder.logs()));

  app.get("/sessions/:id/recording", (c) => c.json(artifacts(c.get("owner"), c.req.param("id"), "recording").recorder.events()));

  app.get("/sessions/:id/downloads", (c) => {
    const zip = zipDownloads(artifacts(c.get("owner"), c.req.param("id"), "downloads").downloadsDir);
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, { "content-type": "application/zip", "content-disposition": `attachment; filename="${c.req.param("id").replace(/[^\w-]/g, "")}-downloads.zip"` });
  });

  return app;
}
