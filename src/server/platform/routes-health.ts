/**
 * Readiness and pressure of one replica (docs/server.md, "Pressure and readiness"). `/readyz` needs no key, since a
 * balancer's check rarely sends one: 503 while draining or full. `/v1/pressure` needs one: its figures are the
 * operator's. It answers while draining too, so an autoscaler sees the replica leave.
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
