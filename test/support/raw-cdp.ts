/** A raw CDP client over one WebSocket (no library in between): what a tenant sends is exactly what svc's proxy sees. */
import { WebSocket } from "ws";

export interface CdpReply {
  id: number;
  result?: any;
  error?: { code: number; message: string };
  sessionId?: string;
}

/** A raw CDP client over one WebSocket: commands by id, events by method. */
export async function rawCdp(url: string) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => ws.once("open", () => resolve()).once("error", reject));
  const waiting = new Map<number, (m: CdpReply) => void>();
  const events: Array<{ method: string; params: any; sessionId?: string }> = [];
  ws.on("message", (data) => {
    const m = JSON.parse(String(data));
    if (m.method) events.push(m);
    else waiting.get(m.id)?.(m);
  });
  let next = 1;
  const reply = (id: number) => new Promise<CdpReply>((r) => waiting.set(id, r));
  return {
    events,
    send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<CdpReply> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      return reply(id);
    },
    /** Sends `raw` as is; resolves with the reply carrying `id`. */
    raw(raw: string | Buffer, id: number, binary = false): Promise<CdpReply> {
      ws.send(raw, { binary });
      return reply(id);
    },
    close: () => ws.close(),
  };
}
