/**
 * svc, driven by the same calls as Stagehand. Imported from src/ through tsx (transformed once at load, outside every
 * timed call). `diagnostics` split svc's own time (settle wait, CDP reads, tree and rendering, selector resolution),
 * so a missed target says what dominates.
 */
import { Service, type Page } from "../src/index.js";
import { captureSnapshot } from "../src/snapshot/index.js";
import { resolveSelector } from "../src/browser/resolve.js";
import { ARGS, CHROME, VIEWPORT, VIEWPORT_JS, type Phase, type Tool } from "./tool.js";

export interface SvcTool extends Tool {
  diagnostics: Record<Phase, Record<string, (selector: string) => Promise<unknown>>>;
}

export function svcTool(): SvcTool {
  let svc: Service | undefined;
  const page = (): Page => {
    if (!svc) throw new Error("svc: not launched");
    return svc.page;
  };
  return {
    name: "svc",
    async launch() {
      svc = new Service({ verbose: 0, localBrowserLaunchOptions: { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT } });
      await svc.init();
    },
    async goto(url) {
      await page().goto(url, { waitUntil: "load" });
    },
    snapshots: {
      extract: async () => (await svc!.extract()).pageText,
    },
    async hover(selector) {
      const r = await svc!.act({ selector, description: "bench hover", method: "hover", arguments: [] });
      if (!r.success) throw new Error(`svc hover failed: ${r.message}`);
    },
    diagnostics: {
      snapshot: {
        /** extract() step 1: wait for a quiet network (returns at once on a quiet page). */
        settle: () => page().settle(),
        /** The CDP reads alone, as capture sends them: getFullAXTree per frame on its own session, in parallel
         * (a child frame that fails is skipped, as capture does). */
        axTrees: () =>
          Promise.all(
            page()
              .frames.ordered()
              .map((f, i) => {
                const read = f.session.send("Accessibility.getFullAXTree", { frameId: f.id });
                return i === 0 ? read : read.catch(() => undefined);
              }),
          ),
        /** extract() step 2: CDP reads + building the tree + rendering the text (no settle, no history). */
        capture: () => captureSnapshot(page()),
      },
      act: {
        /** act() step 1: selector → element (XPath evaluated across frames/shadow roots). */
        resolve: (selector) => resolveSelector(page().frames, selector, { deep: true }),
      },
    },
    viewport: () => page().evaluate<string>(VIEWPORT_JS),
    async close() {
      await svc?.close();
    },
  };
}
