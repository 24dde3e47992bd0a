/**
 * `x-bb-api-key` on every route but health. A session belongs to the key that created it, recorded as the
 * key's fingerprint (tenant.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { keyFingerprint, type Owner } from "../tenant.js";
import { HttpError } from "./errors.js";

export function apiKeyAuth(keys: readonly string[]): MiddlewareHandler<{ Variables: { owner: Owner } }> {
  const known = keys.map((k) => createHash("sha256").update(k).digest());
  return async (c, next) => {
    const key = c.req.header("x-bb-api-key");
    if (!key) throw new HttpError(401, "missing API key: send it in the x-bb-api-key header");
    const digest = createHash("sha256").update(key).digest();
    // Compare digests in constant time: equal-length buffers, no early exit on the first differing byte.
    if (!known.some((k) => timingSafeEqual(k, digest))) throw new HttpError(401, "unknown API key");
    c.set("owner", keyFingerprint(key));
    await next();
  };
}
