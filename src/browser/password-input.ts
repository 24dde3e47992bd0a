/**
 * Is the focused element a password field? Asked before text is typed, so the text is remembered as a session secret
 * (util/secrets.ts) and masked wherever the session writes or asks a model. Focus is followed through open shadow
 * roots and iframes, OOPIFs included. A field in a closed shadow root is not seen here; its value still never reaches
 * a snapshot (the AX tree shows bullets).
 */
import type { CdpSession } from "./cdp/connection.js";
import type { FrameTree } from "./frames.js";

/** "password", "other", or "frame" (the focus is in a cross-process iframe: ask that frame's session). */
const FOCUSED_FIELD = `(() => {
  let a = document.activeElement;
  for (let i = 0; a && i < 50; i++) {
    if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
    if (a.localName === "iframe" || a.localName === "frame") {
      let d = null;
      try { d = a.contentDocument; } catch (e) { d = null; }
      if (d && d.activeElement) { a = d.activeElement; continue; }
      return "frame";
    }
    break;
  }
  return a && a.localName === "input" && String(a.type).toLowerCase() === "password" ? "password" : "other";
})()`;

async function focusedIn(session: CdpSession): Promise<string> {
  try {
    const r = await session.send("Runtime.evaluate", { expression: FOCUSED_FIELD, returnByValue: true });
    return typeof r.result.value === "string" ? r.result.value : "other";
  } catch {
    return "other";
  }
}

export async function focusedIsPassword(frames: FrameTree): Promise<boolean> {
  const main = frames.main.session;
  const here = await focusedIn(main);
  if (here !== "frame") return here === "password";
  // The focus is in an out-of-process iframe: any of them whose own focus is a password field.
  const others = [...new Set(frames.all().map((f) => f.session))].filter((s) => s !== main);
  return (await Promise.all(others.map(focusedIn))).includes("password");
}
