/** The platform's browser-session routes (docs/wire-formats.md "Platform API"): create, read, list, release, debug. */
import { ServiceApiError } from "../errors.js";
import type { ApiClient } from "./http.js";

export type PlatformSessionStatus = "RUNNING" | "ERROR" | "TIMED_OUT" | "COMPLETED";

export interface PlatformSession {
  id: string;
  status: PlatformSessionStatus;
  /** A CDP WebSocket URL a client can attach to. */
  connectUrl: string;
  createdAt: string;
  expiresAt: string;
  keepAlive: boolean;
  userMetadata?: Record<string, unknown>;
  [more: string]: unknown;
}

export interface PlatformDebugInfo {
  debuggerUrl: string;
  debuggerFullscreenUrl: string;
  wsUrl: string;
  pages: { id: string; url: string; title: string; debuggerUrl: string }[];
}

function checkSession(v: unknown): PlatformSession {
  const s = v as Partial<PlatformSession> | null;
  if (!s || typeof s.id !== "string" || typeof s.status !== "string") throw new ServiceApiError(200, "the platform answered with something that is not a session");
  return s as PlatformSession;
}

export class PlatformSessions {
  constructor(private readonly api: ApiClient) {}

  async create(params: Record<string, unknown>): Promise<PlatformSession> {
    return checkSession(await this.api.json("/sessions", { body: params }));
  }

  async get(id: string): Promise<PlatformSession> {
    return checkSession(await this.api.json(`/sessions/${encodeURIComponent(id)}`));
  }

  async list(status?: PlatformSessionStatus): Promise<PlatformSession[]> {
    const list = await this.api.json<unknown>(`/sessions${status ? `?status=${status}` : ""}`);
    if (!Array.isArray(list)) throw new ServiceApiError(200, "the platform's session list is not an array");
    return list.map(checkSession);
  }

  async release(id: string): Promise<PlatformSession> {
    return checkSession(await this.api.json(`/sessions/${encodeURIComponent(id)}`, { body: { status: "REQUEST_RELEASE" } }));
  }

  async debug(id: string): Promise<PlatformDebugInfo> {
    return this.api.json<PlatformDebugInfo>(`/sessions/${encodeURIComponent(id)}/debug`);
  }
}
