/**
 * Per-session metrics (`<state>/metrics/<id>.json`): the library's Metrics record summed over every
 * command run against the session, kept after the session ends. Keys are whatever numeric counters the
 * library reports (actPromptTokens, totalInferenceTimeMs, ...); the store does not need to know them.
 */

import { join } from "node:path";
import { ServiceStateError } from "../errors.js";
import { checkId, ensureDir, readIfExists, resolveStateDir, withFileLock, writeStateFile } from "./files.js";
import { listByMtime } from "./history.js";

export interface StoredMetrics {
  sessionId: string;
  /** How many commands contributed. */
  commands: number;
  updatedAt: string;
  metrics: Record<string, number>;
}

function metricsDir(root: string = resolveStateDir()): string {
  return join(root, "metrics");
}

function metricsPath(id: string, root: string = resolveStateDir()): string {
  return join(metricsDir(root), `${checkId(id)}.json`);
}

export function readMetrics(id: string, root: string = resolveStateDir()): StoredMetrics | undefined {
  const path = metricsPath(id, root);
  const text = readIfExists(path);
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as StoredMetrics;
    if (!v || typeof v.metrics !== "object") throw new Error("no metrics");
    return v;
  } catch (e) {
    throw new ServiceStateError(`corrupt metrics file ${path}`, { cause: e, hint: "delete the file" });
  }
}

/** Add one command's counters to the session's totals (numeric fields only) and persist atomically. */
export function addMetrics(id: string, delta: Readonly<Record<string, unknown>>, root: string = resolveStateDir()): StoredMetrics {
  ensureDir(metricsDir(root));
  const path = metricsPath(id, root);
  return withFileLock(path, () => {
    const current = readMetrics(id, root) ?? { sessionId: id, commands: 0, updatedAt: "", metrics: {} };
    const metrics: Record<string, number> = { ...current.metrics };
    for (const [k, v] of Object.entries(delta)) {
      if (typeof v === "number" && Number.isFinite(v)) metrics[k] = (metrics[k] ?? 0) + v;
    }
    const next: StoredMetrics = { sessionId: id, commands: current.commands + 1, updatedAt: new Date().toISOString(), metrics };
    writeStateFile(path, `${JSON.stringify(next, null, 2)}\n`);
    return next;
  });
}

/** Ids with a metrics file, most recently updated first. */
export function listMetricsIds(root: string = resolveStateDir()): string[] {
  return listByMtime(metricsDir(root), ".json");
}
