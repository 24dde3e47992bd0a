/**
 * Is the element that has the keyboard focus a password field (`<input type=password>`)? Asked right before
 * text is typed or inserted, so the text can be remembered as a secret of the session (util/secrets.ts):
 * whatever fills a password field — a variable, a literal the model wrote, the caller's own fill() — is
 * masked afterwards wherever the session writes something down or asks a model.
 *
 * Each CDP session of the page (the main one, one per out-of-process iframe) is asked whether its document
 * has the focus and follows `activeElement` through open shadow roots and same-process iframes. A field
 * inside a closed shadow root is not seen here (its value still never reaches a snapshot: Chrome's
 * accessibility tree shows a password field's value as bullets).
 */
import type { FrameTree } from "./frames.js";

const FOCUSED_PASSWORD = `(() => {
  if (!document.hasFocus()) return false;
  let a = document.activeElement;
  for (let i = 0; a && i < 50; i++) {
    if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
    if (a.localName === "iframe" || a.localName === "frame") {
      let d = null;
      try { d = a.contentDocument; } catch (e) { d = null; }
      if (d && d.activeElement) { a = d.activeElement; continue; }
      return false;
    }
    break;
  }
  return !!a && a.localName === "input" && String(a.type).toLowerCase() === "password";
})()`;

export async function focusedIsPassword(frames: FrameTree): Promise<boolean> {
  const sessions = [...new Set(frames.all().map((f) => f.session))];
  const answers = await Promise.all(
    sessions.map((session) =>
      session
        .send("Runtime.evaluate", { expression: FOCUSED_PASSWORD, returnByValue: true })
        .then((r) => r.result.value === true)
        .catch(() => false),
    ),
  );
  return answers.includes(true);
}
