/**
 * The CDP WebSocket through any replica: for another replica's session, a WebSocket to that replica's own CDP proxy
 * with the cluster secret, and only once it is open the client's is accepted and the two relayed (relay.ts). The
 * owner checks the token and applies the tenant filter as for a direct client; its refusal is the client's answer.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, type WebSocketServer } from "ws";
import { MAX_CDP_MESSAGE, relay } from "../relay.js";
import { HttpError } from "../http/errors.js";
import { type Cluster, PEER_HEADER } from "./cluster.js";
import { sessionOfPath } from "./forward-http.js";

/** Handles the upgrade when the session is another replica's (true), else leaves it to the local proxy (false). */
export function upgradeForwarder(cluster: Cluster, log: (line: string) => void) {
  return async (req: IncomingMessage, socket: Duplex, head: Buffer, wss: WebSocketServer): Promise<boolean> => {
    const header = req.headers[PEER_HEADER];
    const peer = cluster.isPeer(Array.isArray(header) ? header[0] : header);
    if (peer === false) throw new HttpError(401, "invalid cluster credentials");
    let path: string;
    try {
      path = new URL(req.url ?? "/", "http://proxy.invalid").pathname;
    } catch {
      return false;
    }
    const target = sessionOfPath("GET", path);
    if (!target) return false;
    // Held here (or forwarded here by a peer): served by the local proxy once this replica's lease is sure.
    if (peer) {
      await cluster.ensureHeld(target.kind, target.id);
      return false;
    }
    const where = await cluster.locate(target.kind, target.id);
    if (where.at === "here") await cluster.ensureHeld(target.kind, target.id);
    if (where.at === "here" || where.at === "unknown") return false;
    if (where.at === "gone") throw where.error;
    const upstream = await openPeerSocket(`${where.url.replace(/^http/, "ws")}${req.url ?? "/"}`, cluster).catch(async (e: unknown) => {
      if (e instanceof HttpError) throw e;
      throw (await cluster.goneNow(target.kind, target.id)) ?? new HttpError(502, `the replica that owns session ${target.id} did not answer`);
    });
    if (socket.destroyed) {
      upstream.terminate();
      return true;
    }
    wss.handleUpgrade(req, socket, head, (client) => {
      relay(client, upstream, { onError: (e) => log(`cluster: cdp relay of session ${target.id} failed: ${(e as Error).message}`) });
    });
    return true;
  };
}

function openPeerSocket(url: string, cluster: Cluster): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_CDP_MESSAGE, handshakeTimeout: cluster.connectTimeoutMs, followRedirects: false, headers: { [PEER_HEADER]: cluster.secret } });
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk.slice(0, 2000)));
      res.once("end", () => {
        ws.terminate();
        let message = `the replica that owns the session refused the connection (HTTP ${res.statusCode ?? "?"})`;
        let code: string | undefined;
        try {
          const body = JSON.parse(text) as { message?: unknown; code?: unknown };
          if (typeof body.message === "string") message = body.message;
          if (typeof body.code === "string") code = body.code;
        } catch {
          // not our JSON error body: the generic message stands
        }
        reject(new HttpError(res.statusCode ?? 502, message, {}, code));
      });
    });
    ws.once("open", () => resolve(ws));
  });
}
