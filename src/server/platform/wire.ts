/**
 * Platform session objects as `@browserbasehq/sdk` types them, inventing nothing for optional fields. Region: every
 * session runs here, but the SDK (and Stagehand 4, which picks its host by it) accepts only four names, so one asked
 * is echoed, none gives `us-west-2`. `seleniumRemoteUrl` (a 501 route) and `signingKey` (unchecked) exist because the
 * SDK requires them (docs/server.md).
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
