/**
 * The ground every element operation stands on (element.ts, select.ts): the page it needs, a function called
 * on the element in svc's isolated world, and an operation's hold on the page's object group.
 */
import type { ActionableOptions, ActionTiming } from "./actionability.js";
import { ProtocolError, type CdpSession } from "./cdp/connection.js";
import type { FrameTree } from "./frames.js";
import type { Input } from "./input.js";
import { elementFromNode, isolated, type ElementHandle } from "./resolve.js";
import { pageFunction } from "./selector.js";
import { ServiceEvalError } from "../errors.js";

export interface ElementHost {
  readonly frames: FrameTree;
  readonly mainSession: CdpSession;
  readonly input: Input;
}

export async function callOn<T = unknown>(el: ElementHandle, fn: (this: any, ...args: any[]) => unknown, ...args: unknown[]): Promise<T> {
  const call = async (h: ElementHandle) =>
    h.frame.session.send("Runtime.callFunctionOn", {
      objectId: h.objectId,
      functionDeclaration: pageFunction(fn),
      arguments: args.map((value) => ({ value })),
      returnByValue: true,
      awaitPromise: true,
    });
  const handle = await isolated(el);
  const res = await call(handle).catch(async (e: unknown) => {
    // A handle kept from an earlier operation: its object was released with that operation's group (or its
    // world ended); the node may still be there, so look it up again once.
    if (!(e instanceof ProtocolError) || !/Could not find object|Cannot find context/i.test(e.message)) throw e;
    return call(await elementFromNode(handle.frame, await handle.backendNodeId));
  });
  if (res.exceptionDetails) {
    const msg = res.exceptionDetails.exception?.description?.split("\n")[0] ?? res.exceptionDetails.text;
    throw new ServiceEvalError(`page script failed: ${msg}`);
  }
  return res.result.value as T;
}

/** How long an action may wait for its element, and what to do when the element was re-rendered. */
export interface WaitOptions extends ActionTiming {
  /** Resolves the element again after it was detached (a selector); without it a detached element fails. */
  again?: () => Promise<ElementHandle>;
}

export function opts(host: ElementHost, wait: WaitOptions): ActionableOptions {
  const again = wait.again;
  return { frames: host.frames, ...(again ? { again: async () => isolated(await again()) } : {}) };
}

/**
 * One element operation: on the element's isolated-world object, and holding the page's object group
 * (released when the last operation ends: the handles it resolved are for this operation only).
 */
export async function held<T>(host: ElementHost, el: ElementHandle, work: (el: ElementHandle) => Promise<T>): Promise<T> {
  const release = host.frames.hold();
  try {
    return await work(await isolated(el));
  } finally {
    release();
  }
}
