/**
 * The refs of each page: every snapshot numbers its elements through the page's PageRefs, so a ref a model
 * (or a user reading `svc extract`) was shown keeps naming that element in later snapshots and actions, and
 * acting on a ref checks it is still that element. With a RefStore (a CLI session's file), a page's refs
 * outlive this process.
 */
import type { Page } from "../browser/page.js";
import { resolveSelector } from "../browser/resolve.js";
import { PageRefs, captureSnapshot, documentOf, type Snapshot, type SnapshotOptions } from "../snapshot/index.js";

export interface TakeOptions {
  selector?: string;
  interactiveOnly?: boolean;
  maxTokens?: number;
}

/** Where a page's ref state (JSON) is kept between processes, by the page's target id. */
export interface RefStore {
  load(pageId: string): unknown;
  save(pageId: string, state: unknown): void;
  /**
   * Optional: a value that changes whenever the store is written (by anyone). Refs loaded from it are loaded
   * again once it changed: another process, or another PageSnapshots on the same store, took a snapshot.
   */
  stamp?(): string;
}

export class PageSnapshots {
  /** Each page's refs, with the store's stamp when they were loaded or last saved. */
  private readonly pages = new WeakMap<Page, { refs: PageRefs; stamp: string | undefined }>();

  constructor(private readonly store?: RefStore) {}

  /** The page's refs: every ref its snapshots issued that still stands (a stored session's ones too). */
  refs(page: Page): PageRefs {
    const stamp = this.store?.stamp?.();
    let kept = this.pages.get(page);
    if (!kept || kept.stamp !== stamp) {
      // Every change of a page's refs is saved at once (take), so what the store holds is never behind this.
      const stored = this.store?.load(page.targetId);
      kept = { refs: stored === undefined ? new PageRefs() : PageRefs.restore(stored, `ref map of page ${page.targetId}`), stamp };
      this.pages.set(page, kept);
    }
    return kept.refs;
  }

  async take(page: Page, options: TakeOptions = {}): Promise<Snapshot> {
    await page.settle();
    const refs = this.refs(page);
    const snapOptions: SnapshotOptions = { refs };
    if (options.interactiveOnly) snapOptions.interactiveOnly = true;
    if (options.maxTokens !== undefined) snapOptions.maxTokens = options.maxTokens;
    if (options.selector) {
      const el = await resolveSelector(page.frames, options.selector, { deep: true });
      snapOptions.scope = { frameId: el.frame.id, backendNodeId: await el.backendNodeId };
    }
    refs.enter(await documentOf(page));
    const snapshot = await captureSnapshot(page, snapOptions);
    if (this.store) {
      this.store.save(page.targetId, refs.toJSON());
      this.pages.set(page, { refs, stamp: this.store.stamp?.() });
    }
    return snapshot;
  }
}
