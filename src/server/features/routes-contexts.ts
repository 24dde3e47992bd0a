/**
 * Platform API contexts (Browserbase's `contexts` resource, the SDK's shapes): create, retrieve, update,
 * delete. svc builds a context's contents from sessions only (`browserSettings.context` with `persist`),
 * so the upload fields are documented placeholders: `uploadUrl` points at this server's
 * `/v1/contexts/{id}/upload`, which answers 501 naming the call; `publicKey` is empty.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Env, ServerDeps } from "../app.js";
import { parseBody } from "../http/body.js";
import type { ContextMeta, Contexts } from "./contexts.js";
import { HttpError } from "../http/errors.js";

const CreateSchema = z.looseObject({
  projectId: z.string().min(1).max(200).optional(),
  name: z.string().max(200).optional(),
});

/** The path of the placeholder upload URL (app.ts lets it through without a key, as a presigned URL would be). */
export const CONTEXT_UPLOAD_PATH = /^\/v1\/contexts\/[^/]+\/upload$/;

function wire(m: ContextMeta): Record<string, unknown> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return { id: m.id, createdAt: iso(m.createdAt), updatedAt: iso(m.updatedAt), projectId: m.projectId, ...(m.name ? { name: m.name } : {}) };
}

export function contextRoutes(deps: ServerDeps & { contexts: Contexts }): Hono<Env> {
  const { contexts } = deps;
  const app = new Hono<Env>();
  const upload = (id: string) => ({
    id,
    cipherAlgorithm: "AES-256-CBC",
    initializationVectorSize: 16,
    publicKey: "",
    uploadUrl: `${deps.publicUrl().replace(/\/+$/, "")}/v1/contexts/${id}/upload`,
  });

  app.post("/contexts", async (c) => {
    const p = await parseBody(c, CreateSchema);
    const meta = await contexts.create(c.get("owner"), { projectId: p.projectId, name: p.name?.trim() || undefined });
    return c.json(upload(meta.id), 201);
  });

  app.get("/contexts/:id", async (c) => c.json(wire(await contexts.get(c.get("owner"), c.req.param("id")))));

  // The SDK's (deprecated) update asks for new upload details; the context itself is unchanged.
  app.put("/contexts/:id", async (c) => c.json(upload((await contexts.get(c.get("owner"), c.req.param("id"))).id)));

  app.delete("/contexts/:id", async (c) => {
    await contexts.delete(c.get("owner"), c.req.param("id"));
    return c.body(null, 204);
  });

  app.all("/contexts/:id/upload", () => {
    throw new HttpError(501, "context upload is not supported by svc: a context's contents come from a session started with browserSettings.context {id, persist: true}");
  });

  return app;
}
