/**
 * An eventually-consistent map of a page's frames: (id, parent, session), an OOPIF being a frame on its own target's
 * session. svc's scripts run in an isolated world per frame and document, so a page that patches `querySelector`
 * changes only its own world. svc's remote objects go into one group, released when the page's last element operation
 * ends (`hold`).
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "./cdp/connection.js";
import { PRESS_BINDING } from "./press.js";

export interface Frame {
  readonly id: string;
  parentId: string | undefined;
  session: CdpSession;
  url: string;
  name: string | undefined;
  /** Main-world execution context in this frame's session, once known. */
  contextId: number | undefined;
  /** svc's isolated world in this frame's current document, once created. */
  utilityContextId: number | undefined;
}

/** The name of svc's isolated world in every frame. */
const UTILITY_WORLD = "__svc_utility__";
/** The object group of every remote object svc creates (released by FrameTree.hold's last release). */
export const OBJECT_GROUP = "svc";

const creating = new WeakMap<Frame, Promise<number>>();

/** The execution context id of svc's isolated world in the frame's current document (created on first use). */
export function utilityContext(frame: Frame): Promise<number> {
  if (frame.utilityContextId !== undefined) return Promise.resolve(frame.utilityContextId);
  let p = creating.get(frame);
  if (!p) {
    const session = frame.session;
    p = session
      .send("Page.createIsolatedWorld", { frameId: frame.id, worldName: UTILITY_WORLD, grantUniveralAccess: true })
      .then(({ executionContextId }) => {
        // Its Runtime.executionContextCreated may have come first; a later document's world wins either way.
        if (frame.session === session) frame.utilityContextId ??= executionContextId;
        return executionContextId;
      })
      .finally(() => creating.delete(frame));
    creating.set(frame, p);
  }
  return p;
}

export class FrameTree {
  private readonly frames = new Map<string, Frame>();
  private mainId: string | undefined;
  private readonly contextWaiters = new Map<string, Array<() => void>>();
  private holds = 0;

  get main(): Frame {
    const f = this.mainId ? this.frames.get(this.mainId) : undefined;
    if (!f) throw new Error("page has no main frame yet");
    return f;
  }

  get(id: string): Frame | undefined {
    return this.frames.get(id);
  }

  all(): Frame[] {
    return [...this.frames.values()];
  }

  children(id: string): Frame[] {
    return this.all().filter((f) => f.parentId === id);
  }

  /** Frames in document order: a frame before its children, depth-first. */
  ordered(): Frame[] {
    const out: Frame[] = [];
    const visit = (f: Frame) => {
      out.push(f);
      for (const c of this.children(f.id)) visit(c);
    };
    if (this.mainId && this.frames.has(this.mainId)) visit(this.main);
    return out;
  }

  /** Subscribes to a session's frame and context events. Call before `Page.enable`/`Runtime.enable`. */
  track(session: CdpSession, isMain: boolean): void {
    // Every new document of this session's frames gets svc's world as it is created (its context id comes
    // with Runtime.executionContextCreated): no round trip before the first selector of a page. Documents
    // that exist already get theirs on first use (utilityContext).
    void session.send("Page.addScriptToEvaluateOnNewDocument", { source: "", worldName: UTILITY_WORLD }).catch(() => {});
    // How a press reports that it reached its element, in svc's world only (press.ts).
    void session.send("Runtime.addBinding", { name: PRESS_BINDING, executionContextName: UTILITY_WORLD }).catch(() => {});
    session.on("Page.frameAttached", (e) => this.upsert(e.frameId, e.parentFrameId, session));
    session.on("Page.frameNavigated", (e) => {
      const f = this.upsert(e.frame.id, e.frame.parentId, session);
      // A new document: the old one's iframes are gone, and Chrome sends no frameDetached for them.
      for (const c of this.children(f.id)) this.remove(c.id);
      f.url = e.frame.url + (e.frame.urlFragment ?? "");
      f.name = e.frame.name;
      if (!e.frame.parentId && isMain) this.mainId = e.frame.id;
    });
    session.on("Page.navigatedWithinDocument", (e) => {
      const f = this.frames.get(e.frameId);
      if (f) f.url = e.url;
    });
    session.on("Page.frameDetached", (e) => {
      // "swap": the frame moved to its own process; it lives on under the OOPIF's session.
      if (e.reason === "swap") return;
      this.remove(e.frameId);
    });
    // An OOPIF target went away (its page navigated): its frames go with it unless another session adopted them.
    session.on("svc.detached" as never, () => {
      for (const f of this.all()) if (f.session === session && f.id !== this.mainId) this.remove(f.id);
    });
    session.on("Runtime.executionContextCreated", (e) => {
      const aux = e.context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
      if (!aux?.frameId) return;
      if (!aux.isDefault) {
        const f = this.frames.get(aux.frameId);
        if (f && f.session === session && e.context.name === UTILITY_WORLD) f.utilityContextId = e.context.id;
        return;
      }
      const f = this.frames.get(aux.frameId) ?? this.upsert(aux.frameId, undefined, session);
      if (f.session !== session) return;
      f.contextId = e.context.id;
      for (const w of this.contextWaiters.get(f.id) ?? []) w();
      this.contextWaiters.delete(f.id);
    });
    session.on("Runtime.executionContextDestroyed", (e) => {
      for (const f of this.frames.values()) {
        if (f.session !== session) continue;
        if (f.contextId === e.executionContextId) f.contextId = undefined;
        if (f.utilityContextId === e.executionContextId) f.utilityContextId = undefined;
      }
    });
    session.on("Runtime.executionContextsCleared", () => {
      for (const f of this.frames.values()) {
        if (f.session !== session) continue;
        f.contextId = undefined;
        f.utilityContextId = undefined;
      }
    });
  }

  /** Seeds the map from `Page.getFrameTree` (frames that existed before we attached). */
  seed(session: CdpSession, tree: Protocol.Page.FrameTree, isMain: boolean): void {
    const visit = (t: Protocol.Page.FrameTree) => {
      const f = this.upsert(t.frame.id, t.frame.parentId, session);
      // Events are newer than this snapshot when they raced it (a paused new tab): keep what they said.
      if (!f.url) {
        f.url = t.frame.url + (t.frame.urlFragment ?? "");
        f.name = t.frame.name;
      }
      for (const c of t.childFrames ?? []) visit(c);
    };
    visit(tree);
    if (isMain) this.mainId = tree.frame.id;
  }

  /** An OOPIF target attached: the frame with that id now belongs to the child session. */
  adopt(frameId: string, session: CdpSession): void {
    const f = this.frames.get(frameId);
    if (f) {
      f.session = session;
      f.contextId = undefined;
      f.utilityContextId = undefined;
    } else this.upsert(frameId, undefined, session);
  }

  /** Resolves once the frame has a main-world context (or after `timeoutMs`). */
  waitForContext(frameId: string, timeoutMs: number): Promise<void> {
    const f = this.frames.get(frameId);
    if (!f || f.contextId !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const list = this.contextWaiters.get(frameId) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.contextWaiters.set(frameId, list);
    });
  }

  /**
   * Marks an element operation under way; the returned function ends it. When the last one ends, every
   * remote object svc created in the page's sessions (OBJECT_GROUP) is released, so a long session does
   * not pile them up. Handles are for one operation: do not keep one across operations.
   */
  hold(): () => void {
    this.holds++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.holds > 0) return;
      for (const session of new Set(this.all().map((f) => f.session))) {
        if (!session.closed) void session.send("Runtime.releaseObjectGroup", { objectGroup: OBJECT_GROUP }).catch(() => {});
      }
    };
  }

  private upsert(id: string, parentId: string | undefined, session: CdpSession): Frame {
    let f = this.frames.get(id);
    if (!f) {
      f = { id, parentId, session, url: "", name: undefined, contextId: undefined, utilityContextId: undefined };
      this.frames.set(id, f);
    } else if (parentId) f.parentId = parentId;
    return f;
  }

  private remove(id: string): void {
    for (const c of this.children(id)) this.remove(c.id);
    this.frames.delete(id);
  }
}
