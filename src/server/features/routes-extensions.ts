/**
 * `/v1/extensions` (Browserbase's extensions API, as `@browserbasehq/sdk` and Stagehand 4.x call it): upload
 * a zipped extension (multipart/form-data, field `file`), read its record, delete it. Stored by
 * features/extensions.ts; a session loads one with `extensionId`.
 */
import { basename } from "node:path";
import { Hono } from "hono";
import type { Env } from "../app.js";
import type { ExtensionStore } from "./extensions.js";
import { HttpError } from "../http/errors.js";

const EXPECTED = "expected multipart/form-data with the extension's zip in field file";

export function extensionRoutes(store: ExtensionStore): Hono<Env> {
  const app = new Hono<Env>();

  app.post("/extensions", async (c) => {
    if (!/^multipart\/form-data\b/i.test(c.req.header("content-type") ?? "")) throw new HttpError(400, `body: ${EXPECTED}`);
    let form: FormData;
    try {
      form = await c.req.raw.formData();
    } catch {
      throw new HttpError(400, `body: not readable as multipart/form-data (${EXPECTED})`);
    }
    const file = form.get("file");
    if (file === null) throw new HttpError(400, `file: missing (${EXPECTED})`);
    if (typeof file === "string") throw new HttpError(400, "file: a text field; expected a file part holding the zip");
    const zip = new Uint8Array(await file.arrayBuffer());
    const fileName = basename(file.name || "extension.zip").slice(0, 255);
    return c.json(store.create(c.get("owner"), fileName, zip), 200);
  });

  app.get("/extensions/:id", (c) => c.json(store.get(c.get("owner"), c.req.param("id")).record));

  app.delete("/extensions/:id", (c) => {
    store.delete(c.get("owner"), c.req.param("id"));
    return c.body(null, 204);
  });

  return app;
}
