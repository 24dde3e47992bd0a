/**
 * The latest snapshot of each page: its refs are what a model (or a user reading `svc extract`) may name,
 * so acting on a ref always checks it against the snapshot that issued it.
 */
import type { Page } from "../browser/page.js";
import { resolveSelector } from "../browser/resolve.js";
import { captureSnapshot, type RefMap, type Snapshot, type SnapshotOptions } from "../snapshot/index.js";

export interface TakeOptions {
  selector?: string;
  interactiveOnly?: boolean;
  maxTokens?: number;
}

export class PageSnapshots {
  private readonly latest = new WeakMap<Page, RefMap>();

  refs(page: Page): RefMap | undefined {
    return this.latest.get(page);
  }

  async take(page: Page, options: TakeOptions = {}): Promise<Snapshot> {
    await page.settle();
    const snapOptions: SnapshotOptions = {};
    if (options.interactiveOnly) snapOptions.interactiveOnly = true;
    if (options.maxTokens !== undefined) snapOptions.maxTokens = options.maxTokens;
    if (options.selector) {
      const el = await resolveSelector(page.frames, options.selector, { deep: true });
      snapOptions.scope = { frameId: el.frame.id, backendNodeId: el.backendNodeId };
    }
    const snapshot = await captureSnapshot(page, snapOptions);
    this.latest.set(page, snapshot.refs);
    return snapshot;
  }
}
