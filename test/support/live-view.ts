/** Test helpers for svc's live view (src/server/live/): where a point of the session's page is on the view; a raw viewer socket. */
import type { Page } from "playwright-core";
import { WebSocket } from "ws";

/** The view's point over the centre of `box` (the session page's CSS pixels), through the screen's scale and letterbox. */
export function viewPointOf(view: Page, box: { x: number; y: number; width: number; height: number }): Promise<{ x: number; y: number }> {
  return view.evaluate(
    ({ cx, cy }) => {
      const img = document.querySelector("img[data-svc-live]") as HTMLImageElement;
      const r = img.getBoundingClientRect();
      // The painted frame's size (the image's natural size reads 0 while the next frame loads).
      const fw = Number(img.dataset.frameWidth);
      const fh = Number(img.dataset.frameHeight);
      const scale = Math.min(r.width / fw, r.height / fh);
      const w = fw * scale;
      const h = fh * scale;
      return { x: r.left + (r.width - w) / 2 + (cx / Number(img.dataset.pageWidth)) * w, y: r.top + (r.height - h) / 2 + (cy / Number(img.dataset.pageHeight)) * h };
    },
    { cx: box.x + box.width / 2, cy: box.y + box.height / 2 },
  );
}

/** A raw viewer socket on a live view page URL (`…/socket`): its JSON messages as they come. */
export async function liveSocket(pageUrl: string): Promise<{ ws: WebSocket; messages: Array<Record<string, any>> }> {
  const u = new URL(pageUrl);
  const ws = new WebSocket(`${u.protocol.replace(/^http/, "ws")}//${u.host}${u.pathname}/socket${u.search}`);
  const messages: Array<Record<string, any>> = [];
  ws.on("message", (data, isBinary) => {
    if (!isBinary) messages.push(JSON.parse(String(data)) as Record<string, any>);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, messages };
}

let pings = 0;

/** Sends `before` (if any) and a ping; resolves once its pong came. */
function pinged(sock: { ws: WebSocket; messages: Array<Record<string, any>> }, before: object | undefined, timeoutMs: number): Promise<void> {
  const from = sock.messages.length;
  const n = ++pings;
  const pong = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no pong from the live view within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = () => void (sock.messages.slice(from).some((m) => m.type === "pong" && m.n === n) && done());
    const onClose = () => done(new Error(`the live view socket closed: ${JSON.stringify(sock.messages.slice(from))}`));
    const done = (e?: Error) => {
      clearTimeout(timer);
      sock.ws.off("message", onMessage).off("close", onClose);
      if (e) reject(e);
      else resolve();
    };
    // Registered after liveSocket's own listener, so a message is in `messages` when seen here.
    sock.ws.on("message", onMessage).on("close", onClose);
  });
  if (before) sock.ws.send(JSON.stringify(before));
  sock.ws.send(JSON.stringify({ type: "ping", n }));
  return pong;
}

/**
 * Types `url` in the view's address box (a `navigate` message): the error messages the viewer sent for it.
 * A ping with it is answered once the tab answered what the navigate sent; the navigate's own error may follow
 * that pong (both messages were handled in one turn), so a second ping, sent after, closes the count.
 */
export async function liveNavigate(sock: { ws: WebSocket; messages: Array<Record<string, any>> }, url: string, timeoutMs = 20_000): Promise<string[]> {
  const from = sock.messages.length;
  await pinged(sock, { type: "navigate", url }, timeoutMs);
  await pinged(sock, undefined, timeoutMs);
  return sock.messages.slice(from).filter((m) => m.type === "error").map((m) => String(m.message));
}
