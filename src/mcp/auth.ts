/**
 * The bearer token of `svc mcp --http`: generated (32 random bytes, base64url) unless the operator gives one,
 * and checked on every request in constant time (SHA-256 digests of both sides compared with
 * timingSafeEqual, so neither the token's length nor a matching prefix shows in the timing).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ServiceInvalidArgumentError } from "../index.js";

const MIN_TOKEN_LENGTH = 16;
const MAX_TOKEN_LENGTH = 512;

export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/** A token an operator gave (`field` names where it came from), or a clear refusal. */
export function checkToken(raw: string, field: string): string {
  const token = raw.trim();
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH) {
    throw new ServiceInvalidArgumentError(`${field}: a token of ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} characters is needed, got ${token.length}`, {
      hint: "openssl rand -hex 24",
    });
  }
  if (!/^[\x21-\x7e]+$/.test(token)) throw new ServiceInvalidArgumentError(`${field}: the token must be printable ASCII without spaces`);
  return token;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Why the request's Authorization header does not carry `token`, or undefined when it does. */
export function authProblem(req: IncomingMessage, token: string): string | undefined {
  const header = req.headers.authorization;
  if (!header) return "Authorization: missing (send Authorization: Bearer <token>)";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return "Authorization: expected the Bearer scheme (Authorization: Bearer <token>)";
  if (!timingSafeEqual(digest(m[1]!), digest(token))) return "Authorization: wrong token";
  return undefined;
}
