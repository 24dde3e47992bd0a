/**
 * Readiness and pressure of one replica, for load balancers and autoscalers (platform/admission.ts):
 *
 * - `GET /readyz` (no API key, like /healthz: a load balancer's health check rarely can send one):
 *   200 `{"status":"ready"}` while a new session would be accepted (at once or into the queue); 503
 *   `{"status":"unavailable","reason":…}` while draining, or while every slot and queue place is taken or a
 *   CPU/memory limit is passed. /healthz stays the liveness check (200 until shutdown begins).
 * - `GET /v1/pressure` (API key, like every /v1 route: its figures are the operator's, not the public's):
 *   `{running, queued, maxSessions, maxQueued, cpu, memory, maxCpu, maxMemory, available, reason, draining}`.
 *   Answered while draining too, so an autoscaler sees the replica leave.
 */
import { Hono } from "hono";
import type { Env, ServerDeps } from "../app.js";

export function readinessRoutes(deps: Pick<ServerDeps, "admission">): Hono<Env> {
  const app = new Hono<Env>();
  app.get("/readyz", (c) => {
    const p = deps.admission.pressure();
    return p.available ? c.json({ status: "ready" }) : c.json({ status: "unavailable", reason: p.reason }, 503);
  });
  return app;
}

export function pressureRoutes(deps: Pick<ServerDeps, "admission">): Hono<Env> {
  const app = new Hono<Env>();
  app.get("/pressure", (c) => c.json(deps.admission.pressure()));
  return app;
}
