/**
 * Platform session objects as `@browserbasehq/sdk` types them (resources/sessions/sessions.d.ts): the
 * region names it knows, the fields a create response must carry, and nothing invented for fields it
 * types as optional.
 *
 * Region: every session runs on this host, so no name is true; the SDK (and Stagehand 4, which picks its
 * API host by region) accepts only its four names. A session asks for one and gets it echoed back (a
 * client that pinned a region sees what it asked for); one that asks for none gets `us-west-2`, the
 * platform's own default. Any other name is a 400 listing the four.
 *
 * Selenium: svc speaks CDP only. `seleniumRemoteUrl` points at a route of this server that answers 501
 * naming the call (platform/routes-selenium.ts), and `signingKey` is a random value nothing checks: both are
 * there because the SDK's create response requires them, and both say so when used.
 */
import { randomBytes } from "node:crypto";
import type { PlatformSession } from "./chrome-sessions.js";

export const REGIONS = ["us-west-2", "us-east-1", "eu-central-1", "ap-southeast-1"] as const;
export type Region = (typeof REGIONS)[number];
export const DEFAULT_REGION: Region = "us-west-2";

/** Browserbase's session object (plus connectUrl while running). */
export function sessionToWire(session: PlatformSession, connectUrl: string | undefined): Record<string, unknown> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: session.id,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    startedAt: iso(session.startedAt),
    ...(session.endedAt !== undefined ? { endedAt: iso(session.endedAt) } : {}),
    expiresAt: iso(session.expiresAt),
    projectId: session.projectId,
    status: session.status,
    keepAlive: session.keepAlive,
    region: session.region,
    userMetadata: session.userMetadata,
    ...(session.contextId !== undefined ? { contextId: session.contextId } : {}),
    proxyBytes: 0,
    ...(connectUrl !== undefined ? { connectUrl } : {}),
  };
}

/** The fields only a create response carries (SessionCreateResponse): see the header for what they are. */
export function createOnlyFields(publicUrl: string, sessionId: string): { seleniumRemoteUrl: string; signingKey: string } {
  return {
    seleniumRemoteUrl: `${publicUrl.replace(/\/+$/, "")}/v1/selenium/${sessionId}`,
    signingKey: randomBytes(24).toString("base64url"),
  };
}

/** A search result without the fields the backend could not fill: the SDK types them optional, not nullable. */
export function withoutNulls<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]: Exclude<T[K], null> };
}
