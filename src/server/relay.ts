/**
 * Two WebSockets relayed message by message (a CDP client and a browser), for the CDP proxy, a client cdpUrl and the
 * cluster's forwarding. An optional check (the tenant filter) may answer a message or decide later, the client's
 * later messages waiting in order (beyond MAX_HELD it is disconnected). A slow reader pauses its peer (screencasts
 * are large); one side closing closes the other.
 */
import type { WebSocket } from "ws";

export { MAX_CDP_MESSAGE } from "../util/cdp-limits.js";
const HIGH_WATER = 16 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

/** Client messages held behind one whose verdict is awaited, at most. */
const MAX_HELD = 10_000;

/** What becomes of a client message: forwarded as this text, answered with this reply, or decided later. */
export type ClientVerdict = { forward: string | Buffer } | { reply: string; refused: string } | { later: Promise<ClientVerdict> };

export interface RelayHooks {
  /** A client message: the text to forward, a reply to send back to the client instead, or either later. */
  fromClient?(data: Buffer, isBinary: boolean): ClientVerdict;
  /** A browser message on its way to the client; a string returned is sent in its place. */
  fromBrowser?(data: Buffer, isBinary: boolean): string | undefined;
  /** A client message was answered with a refusal (`what` names it briefly). */
  onRefused?(what: string): void;
  /** Something failed inside the relay (both sides are closed). */
  onError?(e: unknown): void;
}

export interface Relay {
  /** Ends both sides at once. */
  terminate(): void;
}

export function relay(client: WebSocket, browser: WebSocket, hooks: RelayHooks = {}): Relay {
  let closed = false;
  const closeBoth = (code: number, reason: Buffer | string = "") => {
    if (closed) return;
    closed = true;
    for (const ws of [client, browser]) {
      try {
        if (ws.readyState === ws.OPEN) ws.close(validCloseCode(code) ? code : 1000, reason);
        else ws.terminate();
      } catch {
        ws.terminate();
      }
    }
  };
  const fail = (e: unknown) => {
    hooks.onError?.(e);
    closeBoth(1011, "relay error");
  };

  /** Client messages received while a verdict is awaited, in order. */
  const held: Array<[Buffer, boolean]> = [];
  let deciding = false;
  const apply = (verdict: { forward: string | Buffer } | { reply: string; refused: string }, isBinary: boolean) => {
    if ("reply" in verdict) {
      hooks.onRefused?.(verdict.refused);
      send(client, client, verdict.reply, false);
    } else {
      send(browser, client, verdict.forward, typeof verdict.forward === "string" ? false : isBinary);
    }
  };
  const handle = (data: Buffer, isBinary: boolean) => {
    const verdict = hooks.fromClient?.(data, isBinary) ?? { forward: data };
    if (!("later" in verdict)) return apply(verdict, isBinary);
    deciding = true;
    client.pause();
    verdict.later.then(
      (v) => {
        if (closed) return;
        if ("later" in v) throw new Error("a later verdict must be final");
        apply(v, isBinary);
        deciding = false;
        while (!deciding && held.length > 0 && !closed) {
          const [d, b] = held.shift()!;
          handle(d, b);
        }
        if (!deciding) client.resume();
      },
    ).catch(fail);
  };
  client.on("message", (raw, isBinary) => {
    try {
      if (!deciding) return handle(raw as Buffer, isBinary);
      if (held.length >= MAX_HELD) throw new Error(`more than ${MAX_HELD} messages arrived while one awaited its check`);
      held.push([raw as Buffer, isBinary]);
    } catch (e) {
      fail(e);
    }
  });
  browser.on("message", (raw, isBinary) => {
    try {
      const data = raw as Buffer;
      const replaced = hooks.fromBrowser?.(data, isBinary);
      if (replaced !== undefined) send(client, browser, replaced, false);
      else send(client, browser, data, isBinary);
    } catch (e) {
      fail(e);
    }
  });
  for (const ws of [client, browser]) {
    ws.on("close", (code, reason) => closeBoth(code, reason));
    ws.on("error", () => closeBoth(1011));
  }
  return {
    terminate: () => {
      closed = true;
      client.terminate();
      browser.terminate();
    },
  };
}

/** Sends `data` to `to`; pauses `from` while `to` has too much unsent, until it drains. */
function send(to: WebSocket, from: WebSocket, data: Buffer | string, binary: boolean): void {
  if (to.readyState !== to.OPEN) return;
  to.send(data, { binary }, () => {
    if (from.isPaused && to.bufferedAmount < LOW_WATER) from.resume();
  });
  if (to.bufferedAmount > HIGH_WATER && !from.isPaused) from.pause();
}

/** Codes a close frame may carry (1005 and 1006 only describe a close, they are never sent). */
function validCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}
