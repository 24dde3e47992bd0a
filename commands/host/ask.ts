/**
 * Control requests to a session's host (commands/host/control.ts), sent by a command that needs what only
 * the host holds: the keeper's DevTools sessions (emulation, routes, response bodies, a trace). Unlike a
 * command line, a control request is answered even while a command runs in the host.
 */
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { ServiceStateError, errorFromCode } from "../../src/base.js";
import { hostSocketPath } from "./socket.js";

/** A control request: its name and its arguments (checked by the host against the control's schema). */
export interface HostControl {
  control: string;
  [arg: string]: unknown;
}

/** The host's answer: `ok` with the control's result fields, or an error with its code. */
export type ControlReply<T = Record<string, unknown>> = ({ t: "ok" } & T) | { t: "error"; message: string; code?: string };

/** The longest control request and reply line (a response body is the largest answer). */
export const CONTROL_LINE_BYTES = 12_000_000;

/**
 * Sends a control request to the session's host and resolves with its answer; rejects when no host listens,
 * or it does not answer within `timeoutMs` (a reply longer than CONTROL_LINE_BYTES is a protocol error). `T` is
 * the control's result (control.ts), trusted as the host's own answer. `signal` withdraws the request.
 */
export function askHost<T = Record<string, unknown>>(root: string, id: string, control: HostControl, timeoutMs = 15_000, signal?: AbortSignal): Promise<ControlReply<T>> {
  const path = hostSocketPath(root, id);
  return new Promise((resolve, reject) => {
    if (!existsSync(path)) return reject(new Error("the session's host is not listening"));
    // Aborted: the connection closes, which withdraws a control still waiting (host.ts).
    if (signal?.aborted) return reject(new Error("the request to the session's host was withdrawn"));
    let buffer = "";
    const socket = connect(path);
    const fail = (why: string) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(why));
    };
    const timer = setTimeout(() => fail(`the session's host did not answer within ${timeoutMs / 1000} s`), timeoutMs);
    signal?.addEventListener("abort", () => fail("the request to the session's host was withdrawn"), { once: true });
    socket.setEncoding("utf8");
    socket.on("error", (e) => fail(`the session's host is not listening (${(e as NodeJS.ErrnoException).code ?? e.message})`));
    socket.on("connect", () => socket.write(`${JSON.stringify(control)}\n`));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > CONTROL_LINE_BYTES) return fail("the session's host answered too much");
      const nl = buffer.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      socket.destroy();
      try {
        const r = JSON.parse(buffer.slice(0, nl)) as ControlReply<T> | null;
        if (r?.t === "ok") return resolve(r);
        if (r?.t === "error" && typeof r.message === "string") return resolve(r);
      } catch {
        // falls through
      }
      reject(new Error("the session's host gave an answer svc does not understand"));
    });
    socket.on("close", () => fail("the session's host closed the connection without answering"));
  });
}

/** How a command words a control request that failed: no host answered (`unreached`), or it answered with an error (`refused`). */
export interface AskWording {
  unreached: string;
  refused?: string;
}

/**
 * askHost for a command: the control's result, or one line — STATE_ERROR when no host answered (the session
 * may be ending), else the host's own error rebuilt by its code (STATE_ERROR when it has none).
 */
export async function askHostFor<T>(root: string, id: string, control: HostControl, wording: AskWording, options: { timeoutMs?: number | undefined; signal?: AbortSignal } = {}): Promise<T> {
  const reply = await askHost<T>(root, id, control, options.timeoutMs, options.signal).catch((e: unknown) => {
    throw new ServiceStateError(`${wording.unreached}: ${(e as Error).message}`, { hint: "the session may be ending; svc sessions list" });
  });
  if (reply.t === "error") throw errorFromCode(reply.code ?? "STATE_ERROR", wording.refused ? `${wording.refused}: ${reply.message}` : reply.message);
  return reply as T;
}

/** askHostFor worded for session `id` (svc network, har, trace). */
export function askSessionHost<T>(root: string, id: string, control: HostControl, timeoutMs?: number): Promise<T> {
  return askHostFor<T>(root, id, control, { unreached: `session ${id}` }, { timeoutMs });
}

/** The wording of a setting saved for the session and then handed to its host to apply (svc set, svc network route). */
export function savedWording(id: string): AskWording {
  return { unreached: `saved for session ${id}, but not applied`, refused: `saved for session ${id}, but its host could not apply it` };
}
