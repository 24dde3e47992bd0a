/**
 * globalSetup of the e2e project: one headless Chrome per worker slot, launched by svc's own launchBrowser (0600
 * socket, a reaper ending it even on SIGKILL), shared by the files that do not test launching (shared-chrome.ts). A
 * watcher connection notes every origin its pages visit, so a file attaching later can clear their storage.
 */
import { appendFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { launchBrowser, type LaunchedBrowser } from "../../src/browser/launch.js";
import type { SharedChrome } from "./shared-chrome.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Index = VITEST_POOL_ID - 1. */
    sharedChromes: SharedChrome[];
  }
}

const CHROMIUM = process.env.CHROME_PATH ?? "/usr/bin/chromium";

/** A web origin worth clearing (http/https), or undefined (about:, data:, chrome:, blob: of those). */
function webOrigin(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Records the origin of every target (page, iframe, worker) the browser creates or navigates, one a line. */
async function watchOrigins(wsEndpoint: string, file: string): Promise<CdpConnection> {
  const conn = await CdpConnection.connect(wsEndpoint);
  const seen = new Set<string>();
  const record = (e: { targetInfo: { url: string } }) => {
    const origin = webOrigin(e.targetInfo.url);
    if (!origin) return;
    // A reset empties the file: what was seen before it must be written again (a later file's server may get the port).
    if (statSync(file).size === 0) seen.clear();
    if (seen.has(origin)) return;
    seen.add(origin);
    appendFileSync(file, origin + "\n");
  };
  conn.root.on("Target.targetCreated", record);
  conn.root.on("Target.targetInfoChanged", record);
  await conn.root.send("Target.setDiscoverTargets", { discover: true });
  return conn;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const slots = Math.max(1, project.globalConfig.maxWorkers ?? 2);
  const launched: LaunchedBrowser[] = [];
  const watchers: CdpConnection[] = [];
  const teardown = async () => {
    await Promise.all(watchers.map((w) => w.close()));
    await Promise.all(launched.map((b) => b.close()));
  };
  try {
    const chromes: SharedChrome[] = [];
    for (let i = 0; i < slots; i++) {
      const browser = await launchBrowser({ headless: true, executablePath: CHROMIUM });
      launched.push(browser);
      // In Chrome's run dir: removed with it, by its reaper too when this process is killed.
      const originsFile = join(browser.runDir, "origins");
      writeFileSync(originsFile, "");
      watchers.push(await watchOrigins(browser.wsEndpoint, originsFile));
      chromes.push({ wsEndpoint: browser.wsEndpoint, pid: browser.pid, originsFile });
      // scripts/suite-cpu.ts charges this Chrome's CPU to the file its worker slot runs.
      if (process.env.SVC_SUITE_CPU_LOG) appendFileSync(process.env.SVC_SUITE_CPU_LOG, `chrome ${browser.pid} ${i + 1}\n`);
    }
    project.provide("sharedChromes", chromes);
  } catch (e) {
    await teardown();
    throw e;
  }
  return teardown;
}
