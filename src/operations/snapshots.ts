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
}

export class PageSnapshots {
  private readonly pages = new WeakMap<Page, PageRefs>();

  constructor(private readonly store?: RefStore) {}

  /** The page's refs: every ref its snapshots issued that still stands (a stored session's ones too). */
  refs(page: Page): PageRefs {
    let refs = this.pages.get(page);
    if (!refs) {
      const stored = this.store?.load(page.targetId);
      refs = stored === undefined ? new PageRefs() : PageRefs.restore(stored, `ref map of page ${page.targetId}`);
      this.pages.set(page, refs);
    }
    return refs;
  }

  async take(page: Page, options: TakeOptions = {}): Promise<Snapshot> {
    await page.settle();
    const refs = this.refs(page);
    const snapOptions: SnapshotOptions = { refs };
    if (options.interactiveOnly) snapOptions.interactiveOnly = true;
    if (options.maxTokens !== undefined) snapOptions.maxTokens = options.maxTokens;
    if (options.selector) {
      const el = await resolveSelector(page.frames, options.selector, { deep: true });
      snapOptions.scope = { frameId: el.frame.id, backendNodeId: el.backendNodeId };
    }
    refs.enter(await documentOf(page));
    const snapshot = await captureSnapshot(page, snapOptions);
    this.store?.save(page.targetId, refs.toJSON());
    return snapshot;
  }
}
