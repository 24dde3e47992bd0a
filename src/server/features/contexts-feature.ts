/**
 * `browserSettings.context: {id, persist}`: the saved profile is written into a fresh profile before Chrome starts
 * (never a warm Chrome), its cookies set once it runs. With `persist` the session holds the context's lock (409
 * CONTEXT_IN_USE) and saves it at the end after a clean close. When Chrome is gone, a step fails or it is too large,
 * nothing is overwritten and a log says why.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LaunchedBrowser } from "../../index.js";
import { browserCookies, closeBrowserCleanly, setBrowserCookies } from "../../internal.js";
import { processAlive } from "../../util/process.js";
import type { ServerConfig } from "../config.js";
import { type Contexts, MAX_CONTEXT_BYTES } from "./contexts.js";
import { readProfileParts, writeProfileParts } from "./contexts-profile.js";
import type { FeatureRun, SessionFeature, SessionStart } from "../platform/feature.js";

/** How long Chrome may take to exit after Browser.close (within the features' ENDING_TIMEOUT_MS). */
const CLEAN_EXIT_MS = 8000;

export function contextsFeature(contexts: Contexts, config: ServerConfig, log: (line: string) => void): SessionFeature {
  return {
    name: "contexts",
    async prepare(start: SessionStart): Promise<FeatureRun | undefined> {
      const ref = start.params.browserSettings?.context;
      if (!ref) return undefined;
      const { id } = ref;
      const persist = ref.persist === true;
      const owner = start.owner;
      // 404 before anything else: another key's context does not exist for this one.
      const { contents } = await contexts.load(owner, id);
      const lifetimeMs = (start.params.timeout ?? config.sessionTimeoutS) * 1000;
      const unlock = persist ? await contexts.lock(owner, id, lifetimeMs + 60_000) : undefined;
      let dir: string;
      try {
        dir = mkdtempSync(join(tmpdir(), "svc-context-"));
        writeProfileParts(dir, contents.files);
      } catch (e) {
        await unlock?.();
        throw e;
      }
      const where = `session ${start.id}: context ${id}`;
      // Set once Chrome is gone: an `ending` cut short by the features' time limit must not save after it.
      let over = false;
      let locked = unlock !== undefined;
      const release = async () => {
        if (locked) await unlock?.();
        locked = false;
      };
      const saveBack = async (browser: LaunchedBrowser): Promise<void> => {
        if (!processAlive(browser.pid)) return log(`${where}: Chrome exited before the session ended (crashed or closed by a client): not saved, the previous contents stay`);
        const cookies = await browserCookies(browser.wsEndpoint);
        if (!(await closeBrowserCleanly(browser.wsEndpoint, browser.pid, CLEAN_EXIT_MS))) return log(`${where}: Chrome did not exit cleanly within ${CLEAN_EXIT_MS / 1000}s: not saved, the previous contents stay`);
        const { files, bytes } = readProfileParts(dir, MAX_CONTEXT_BYTES);
        if (bytes > MAX_CONTEXT_BYTES) return log(`${where}: its profile storage is over the ${MAX_CONTEXT_BYTES / 2 ** 20} MiB bound: not saved, the previous contents stay`);
        if (over) return log(`${where}: the session's end took too long: not saved, the previous contents stay`);
        try {
          await contexts.save(owner, id, { cookies, files });
          log(`${where}: saved (${cookies.length} cookies, ${Object.keys(files).length} storage files)`);
        } catch (e) {
          log(`${where}: not saved (${e instanceof Error ? e.message : String(e)}); the previous contents stay`);
        }
      };
      return {
        userDataDir: dir,
        async started(_session, browser) {
          await setBrowserCookies(browser.wsEndpoint, contents.cookies);
        },
        async ending(_session, browser) {
          if (!persist) return log(`${where}: read only (persist: false): nothing saved`);
          try {
            await saveBack(browser);
          } finally {
            // Saved (or not): the next persisting session may start now, not only once Chrome is reaped.
            await release();
          }
        },
        async ended() {
          over = true;
          rmSync(dir, { recursive: true, force: true });
          await release();
        },
      };
    },
  };
}
