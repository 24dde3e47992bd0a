/**
 * The refs of each page: every snapshot numbers its elements through the page's PageRefs, so a ref a model was shown
 * keeps naming that element later, and acting on it checks it still does. With a RefStore (a CLI session's file) refs
 * outlive this process. A snapshot shown to its caller is also kept as the tab's last outline, which a later `delta`
 * counts from (in the store if it keeps outlines).
 */
import type { Page } from "../browser/page.js";
import { resolveSelector } from "../browser/resolve.js";
import { ServiceInvalidArgumentError } from "../errors.js";
import { type Outline, OutlinesSchema, PageRefs, RefMap, captureSnapshot, deltaBase, documentOf, keepOutline, type Snapshot, type SnapshotOptions } from "../snapshot/index.js";

export interface TakeOptions {
  selector?: string;
  interactiveOnly?: boolean;
  maxTokens?: number;
  /**
   * The caller reads this outline (svc snapshot, Service.snapshot, the MCP tool; not an operation's prompt): it
   * becomes the tab's last snapshot, and a budget may cut ref lines too (render.ts).
   */
  shown?: boolean;
  /** Shown, and only what changed since the tab's last snapshot (a full one, marked, after a navigation). */
  delta?: boolean;
  /** Shown, from this ref's line on. */
  from?: string;
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
  /** Optional: the tab's last outlines (Outline[], validated when loaded), kept between processes. */
  loadOutlines?(pageId: string): unknown;
  saveOutlines?(pageId: string, outlines: Outline[]): void;
}

/** A delta is only counted from an outline taken with the same options. */
const modeOf = (o: TakeOptions) => JSON.stringify([o.interactiveOnly === true, o.selector ?? ""]);

export class PageSnapshots {
  /** Each page's refs, with the store's stamp when they were loaded or last saved. */
  private readonly pages = new WeakMap<Page, { refs: PageRefs; stamp: string | undefined }>();
  /** Each page's last outlines shown (delta.ts keepOutline), when the store keeps none. */
  private readonly outlines = new WeakMap<Page, Outline[]>();

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
    const from = checkView(options);
    await page.settle();
    const refs = this.refs(page);
    const snapOptions: SnapshotOptions = { refs };
    if (options.interactiveOnly) snapOptions.interactiveOnly = true;
    if (options.maxTokens !== undefined) snapOptions.maxTokens = options.maxTokens;
    if (options.selector) {
      const el = await resolveSelector(page.frames, options.selector, { deep: true });
      snapOptions.scope = { frameId: el.frame.id, backendNodeId: await el.backendNodeId };
    }
    const document = await documentOf(page);
    refs.enter(document);
    const shown = options.shown || options.delta || from !== undefined;
    const mode = modeOf(options);
    if (shown) snapOptions.view = { ...(options.delta ? { delta: deltaBase(this.outlinesOf(page), document, mode) } : {}), ...(from !== undefined ? { from } : {}) };
    const snapshot = await captureSnapshot(page, snapOptions);
    if (this.store) {
      this.store.save(page.targetId, refs.toJSON());
      this.pages.set(page, { refs, stamp: this.store.stamp?.() });
    }
    if (snapshot.outline) this.keep(page, { document, mode, lines: snapshot.outline });
    return snapshot;
  }

  /** The tab's kept outlines (the store's, when it keeps them; an unreadable file keeps none). */
  private outlinesOf(page: Page): Outline[] {
    if (!this.store?.loadOutlines) return this.outlines.get(page) ?? [];
    const parsed = OutlinesSchema.safeParse(this.store.loadOutlines(page.targetId) ?? []);
    return parsed.success ? parsed.data : [];
  }

  private keep(page: Page, outline: Outline): void {
    const kept = keepOutline(this.outlinesOf(page), outline);
    if (this.store?.saveOutlines) this.store.saveOutlines(page.targetId, kept);
    else this.outlines.set(page, kept);
  }
}

/** `from` as a ref (`e12`, `[e12]`); a delta and `from` together are refused. */
function checkView(options: TakeOptions): string | undefined {
  if (options.from === undefined) return undefined;
  const from = RefMap.normalize(options.from);
  if (from === undefined) throw new ServiceInvalidArgumentError(`from: expected a ref such as e12, got "${options.from.slice(0, 40)}"`);
  if (options.delta) throw new ServiceInvalidArgumentError("from: not with delta", { hint: "a delta is counted over the whole outline; ask for one or the other" });
  return from;
}
