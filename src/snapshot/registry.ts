/**
 * The refs of one page, across its snapshots. Pure (no CDP): the caller says which document the page shows (its main
 * frame's loaderId) and hands over each snapshot's tree to number. A number is never given to another element, even
 * across documents, so a ref from an older snapshot resolves to its own element or fails (docs/cli.md#selectors).
 * toJSON/restore: a CLI session's refs.
 */
import { z } from "zod";
import { ServiceStateError } from "../errors.js";
import { describeIssue } from "../util/zod.js";
import { squash, str } from "./ax.js";
import { RefMap, type RefLookup, type RefTarget } from "./refs.js";
import type { BuiltTree, FrameAXTree, SnapNode } from "./tree.js";

const TargetSchema = z.strictObject({
  ref: z.string().regex(/^e\d+$/),
  frameId: z.string().min(1),
  backendNodeId: z.number().int().positive(),
  role: z.string(),
  name: z.string(),
  derived: z.literal(true).optional(),
  ax: z.strictObject({ role: z.string(), name: z.string() }).optional(),
});

const StateSchema = z.strictObject({
  document: z.string().min(1).optional(),
  next: z.number().int().min(1),
  first: z.number().int().min(1),
  refs: z.array(TargetSchema),
});

/** A page's refs as JSON (what a CLI session stores per page). */
export type RefState = z.infer<typeof StateSchema>;

const keyOf = (frameId: string, backendNodeId: number) => `${frameId}:${backendNodeId}`;
const numberOf = (ref: string) => Number(ref.slice(1));

export class PageRefs implements RefLookup {
  private doc: string | undefined;
  /** The next number to give. */
  private next = 1;
  /** The first number given in the current document: lower ones belong to documents the page left. */
  private first = 1;
  private readonly byKey = new Map<string, RefTarget>();
  private readonly byRef = new Map<string, RefTarget>();

  get document(): string | undefined {
    return this.doc;
  }

  get size(): number {
    return this.byRef.size;
  }

  /** The page shows `document` now: the refs of any other document are dropped (their numbers stay spent). */
  enter(document: string): void {
    if (document === this.doc) return;
    this.byKey.clear();
    this.byRef.clear();
    this.doc = document;
    this.first = this.next;
  }

  /**
   * Gives the snapshot's elements their page-wide refs: rewrites `built.refs` and the refs in `built.nodes`
   * (numbered provisionally by buildTree) in place. `complete`: the snapshot covered the whole page, so
   * elements it did not show are forgotten.
   */
  assign(built: BuiltTree, trees: readonly FrameAXTree[], complete: boolean): void {
    const ax = axOf(built.refs, trees);
    const renamed = new Map<string, string>();
    const seen = new Set<string>();
    const out: RefTarget[] = [];
    for (const t of built.refs) {
      const key = keyOf(t.frameId, t.backendNodeId);
      const prev = this.byKey.get(key);
      let ref: string;
      if (prev && prev.role === t.role && prev.name === t.name) ref = prev.ref;
      else {
        if (prev) this.byRef.delete(prev.ref);
        ref = `e${this.next++}`;
      }
      const own = ax.get(key);
      const target: RefTarget = { ref, frameId: t.frameId, backendNodeId: t.backendNodeId, role: t.role, name: t.name, ...(t.derived ? { derived: true } : {}), ...(own ? { ax: own } : {}) };
      this.byKey.set(key, target);
      this.byRef.set(ref, target);
      renamed.set(t.ref, ref);
      seen.add(key);
      out.push(target);
    }
    if (complete) {
      for (const [key, t] of this.byKey) {
        if (seen.has(key)) continue;
        this.byKey.delete(key);
        this.byRef.delete(t.ref);
      }
    }
    built.refs.splice(0, built.refs.length, ...out);
    relabel(built.nodes, renamed);
  }

  get(ref: string): RefTarget | undefined {
    const key = RefMap.normalize(ref);
    return key === undefined ? undefined : this.byRef.get(key);
  }

  /** Why `ref` resolves to nothing here. */
  explain(ref: string): string {
    const key = RefMap.normalize(ref) ?? ref;
    const n = numberOf(key);
    if (!Number.isFinite(n) || n >= this.next) return `ref ${key} was not shown by any snapshot of this page`;
    if (n < this.first) return `ref ${key} is from an earlier document: the page navigated since the snapshot that showed it`;
    return `ref ${key}: its element is gone, or its role or name changed, since the snapshot that showed it`;
  }

  toJSON(): RefState {
    return { ...(this.doc !== undefined ? { document: this.doc } : {}), next: this.next, first: this.first, refs: [...this.byRef.values()] };
  }

  /** A stored state back (validated: a field that is wrong is named in a ServiceStateError). */
  static restore(raw: unknown, what = "ref map"): PageRefs {
    const parsed = StateSchema.safeParse(raw);
    if (!parsed.success) throw new ServiceStateError(`corrupt ${what}: ${describeIssue(parsed.error)}`, { hint: "delete the file; refs are issued again by the next snapshot" });
    const s = parsed.data;
    const refs = new PageRefs();
    refs.doc = s.document;
    refs.next = s.next;
    refs.first = Math.min(s.first, s.next);
    for (const t of s.refs) {
      if (numberOf(t.ref) >= s.next) throw new ServiceStateError(`corrupt ${what}: refs: ${t.ref} is not below next (${s.next})`, { hint: "delete the file" });
      refs.byKey.set(keyOf(t.frameId, t.backendNodeId), t);
      refs.byRef.set(t.ref, t);
    }
    return refs;
  }
}

/** Chrome's role and name of each ref'd node, read from the AX trees the snapshot was built from. */
function axOf(refs: readonly RefTarget[], trees: readonly FrameAXTree[]): Map<string, { role: string; name: string }> {
  const out = new Map<string, { role: string; name: string }>();
  const wanted = new Set(refs.map((t) => keyOf(t.frameId, t.backendNodeId)));
  for (const tree of trees) {
    for (const n of tree.nodes) {
      if (n.backendDOMNodeId === undefined) continue;
      const key = keyOf(tree.frameId, n.backendDOMNodeId);
      if (wanted.has(key) && !out.has(key)) out.set(key, axIdentity(n.role, n.name));
    }
  }
  return out;
}

/** How a node's role and name are compared (the same reading here and when a ref is used). */
export function axIdentity(role: { value?: unknown } | undefined, name: { value?: unknown } | undefined): { role: string; name: string } {
  return { role: str(role), name: squash(str(name)).trim() };
}

/** Provisional refs → page refs, once per node object (a node reachable twice is not renamed twice). */
function relabel(nodes: SnapNode[], renamed: ReadonlyMap<string, string>, done = new Set<SnapNode>()): void {
  for (const n of nodes) {
    if (done.has(n)) continue;
    done.add(n);
    if (n.ref !== undefined) n.ref = renamed.get(n.ref) ?? n.ref;
    if (n.children.length) relabel(n.children, renamed, done);
  }
}
