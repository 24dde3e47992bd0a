/**
 * Who a tenant is: the API key that made a request, recorded as the key's fingerprint (never the key itself,
 * so nothing the server stores or logs holds a key). Every area speaks of its tenants in these terms; the
 * HTTP layer (http/auth.ts) learns a request's tenant from its key.
 */
import { createHash } from "node:crypto";

export type Owner = string;

/** A short, stable, one-way id of an API key: safe to store and log. */
export function keyFingerprint(key: string): Owner {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}
