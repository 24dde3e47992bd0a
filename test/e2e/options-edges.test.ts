/**
 * Construction options at the edges (issue 11): an unknown `env` is ServiceEnvironmentError; the older
 * generation's `projectId` names the cloud session's project; options svc accepts for compatibility but
 * does not implement say so in the log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceEnvironmentError } from "../../src/errors.js";
import type { ServiceOptions } from "../../src/options.js";
import { startServer, type RunningServer } from "../../src/server/index.js";
import { Service } from "../../src/service.js";
import { CHROMIUM, makeService } from "../support/browser.js";
import { logSink } from "../support/models.js";

const KEY = "svc-test-key-options-edges";
const cacheDir = mkdtempSync(join(tmpdir(), "svc-options-edges-"));
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, apiKeys: [KEY], cacheDir, launch: { executablePath: CHROMIUM }, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe("env", () => {
  it("an unknown env is ServiceEnvironmentError naming the accepted values", () => {
    for (const env of ["MARS", "local", 3]) {
      const err = (() => {
        try {
          new Service({ env } as unknown as ServiceOptions);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ServiceEnvironmentError);
      expect((err as ServiceEnvironmentError).code).toBe("INVALID_ENVIRONMENT");
      expect((err as Error).message).toMatch(/^env: expected "LOCAL" or "BROWSERBASE", got /);
    }
  });
});

describe("older-generation options", () => {
  it("projectId is the cloud session's project", async () => {
    const svc = makeService({ env: "BROWSERBASE", apiKey: KEY, apiBaseURL: server.url, projectId: "proj-edges-1" });
    try {
      await svc.init();
      const res = await fetch(`${server.url}/v1/sessions/${svc.browserbaseSessionID}`, { headers: { "x-bb-api-key": KEY } });
      expect(((await res.json()) as { projectId: string }).projectId).toBe("proj-edges-1");
    } finally {
      await svc.close({ force: true });
    }
  });

  it("experimental, waitForCaptchaSolves and llmProvider are accepted and the log says they have no effect", () => {
    const sink = logSink();
    new Service({ verbose: 1, logger: sink.logger, experimental: true, waitForCaptchaSolves: true, llmProvider: {} });
    for (const key of ["experimental", "waitForCaptchaSolves", "llmProvider"]) {
      expect(sink.text()).toContain(`option ${key} is accepted for compatibility and has no effect in svc`);
    }
    const quiet = logSink();
    new Service({ verbose: 1, logger: quiet.logger });
    expect(quiet.text()).not.toContain("has no effect");
  });
});
