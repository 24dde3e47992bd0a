/**
 * Refs: the short handles (`e1`, `e2`, …) a model uses to name an element it saw in a snapshot. A ref
 * resolves to the element's frame and its backendNodeId in that frame's CDP session (selectors are derived
 * lazily by the caller, for the one element acted on). Numbers are given by the page's PageRefs
 * (registry.ts): an element keeps its ref across snapshots while its role and name hold.
 */

export interface RefTarget {
  /** `e12`: unique within a page; the number is never given to another element of that page. */
  readonly ref: string;
  /** The frame whose document holds the element (an OOPIF's own frame id for cross-origin iframes). */
  readonly frameId: string;
  /** DOM.BackendNodeId of the element, valid in that frame's session. */
  readonly backendNodeId: number;
  /** Role as shown in the snapshot (`button`, `textbox`, `combobox`, …). */
  readonly role: string;
  /** Accessible name as shown in the snapshot (whitespace collapsed, untruncated). */
  readonly name: string;
  /** The name is derived for an icon-only control (title, tooltip, icon class …; icon-name.ts), not its accessible name. */
  readonly derived?: true;
  /**
   * Chrome's own role and name of the node (its AX node as read), compared when the ref is used: the shown
   * role/name may be derived by the snapshot (a name from the text inside), these can be read back for one node.
   */
  readonly ax?: { readonly role: string; readonly name: string };
}

/** What resolving a ref needs: the targets, and (for a page's registry) which document issued them. */
export interface RefLookup {
  get(ref: string): RefTarget | undefined;
  /** The main frame's loaderId when the refs were issued: a different one means the page navigated since. */
  readonly document?: string | undefined;
  /** Why a ref is not (or no longer) there, for the STALE_REF message. */
  explain?(ref: string): string;
}

const REF_PATTERN = /^\[?(?:ref=)?(e\d+)\]?$/;

export class RefMap implements RefLookup {
  private readonly byRef = new Map<string, RefTarget>();
  private readonly ordered: readonly RefTarget[];

  constructor(targets: readonly RefTarget[] = []) {
    this.ordered = targets;
    for (const t of targets) this.byRef.set(t.ref, t);
  }

  get size(): number {
    return this.ordered.length;
  }

  /** Looks a ref up; accepts `e12`, `[e12]` and `ref=e12` as a model may write it. */
  get(ref: string): RefTarget | undefined {
    const key = RefMap.normalize(ref);
    return key === undefined ? undefined : this.byRef.get(key);
  }

  has(ref: string): boolean {
    return this.get(ref) !== undefined;
  }

  /** All refs in document order. */
  list(): readonly RefTarget[] {
    return this.ordered;
  }

  /** The ref issued for an element, if this snapshot showed it. */
  findByNode(frameId: string, backendNodeId: number): RefTarget | undefined {
    return this.ordered.find((t) => t.frameId === frameId && t.backendNodeId === backendNodeId);
  }

  [Symbol.iterator](): IterableIterator<RefTarget> {
    return this.ordered[Symbol.iterator]();
  }

  /** `e12` for anything that looks like a ref (`e12`, `[e12]`, `ref=e12`), else undefined. */
  static normalize(ref: string): string | undefined {
    return REF_PATTERN.exec(ref.trim())?.[1];
  }

  /** True when the string has the shape of a ref (whether or not a snapshot issued it). */
  static isRef(s: string): boolean {
    return RefMap.normalize(s) !== undefined;
  }
}
