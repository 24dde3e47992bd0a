/**
 * `x-bb-api-key` on every route but health. A session belongs to the key that created it, recorded as the
 * key's fingerprint (never the key itself, so nothing the server stores or logs holds a key).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { HttpError } from "./errors.js";

export type Owner = string;

/** A short, stable, one-way id of an API key: safe to store and log. */
export function keyFingerprint(key: string): Owner {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

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
