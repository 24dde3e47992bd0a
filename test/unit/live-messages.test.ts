/**
 * The live view's viewer messages (src/server/live/messages.ts): what passes, and the one-line reason naming
 * the field for what does not.
 */
import { describe, expect, it } from "vitest";
import { INPUT_TYPES, parseViewerMessage } from "../../src/server/live/messages.js";

const reason = (m: unknown) => {
  const r = parseViewerMessage(typeof m === "string" ? m : JSON.stringify(m));
  return r.ok ? "ok" : r.reason;
};

describe("live view messages", () => {
  it("accepts each message type in its documented shape", () => {
    for (const m of [
      { type: "ack" },
      { type: "size", width: 1280, height: 720 },
      { type: "mouse", action: "down", x: 10.5, y: 20, button: "left", clickCount: 1, modifiers: 2 },
      { type: "mouse", action: "wheel", x: 1, y: 1, deltaX: 0, deltaY: -120 },
      { type: "key", action: "down", key: "a", code: "KeyA", keyCode: 65, text: "a" },
      { type: "key", action: "up", key: "Enter" },
      { type: "navigate", url: "https://example.com" },
      { type: "history", action: "back" },
      { type: "tab", id: "ABC123" },
      { type: "ping", n: 3 },
      { type: "answer", id: "q1" },
      { type: "answer", id: "q1", reply: "done" },
    ]) {
      expect(reason(m), JSON.stringify(m)).toBe("ok");
    }
  });

  it("refuses anything else with a reason naming the field", () => {
    expect(reason("{not json")).toBe("message: not valid JSON");
    expect(reason({ type: "eval", expression: "1" })).toMatch(/^message\.type: /);
    expect(reason({ type: "mouse", action: "teleport", x: 1, y: 1 })).toMatch(/^message\.action: /);
    expect(reason({ type: "mouse", action: "move", x: 1e9, y: 1 })).toMatch(/^message\.x: /);
    expect(reason({ type: "mouse", action: "move", x: "1", y: 1 })).toMatch(/^message\.x: /);
    expect(reason({ type: "key", action: "down", key: "x".repeat(33) })).toMatch(/^message\.key: /);
    expect(reason({ type: "key", action: "down", key: "a", text: "x".repeat(9) })).toMatch(/^message\.text: /);
    expect(reason({ type: "navigate", url: "x".repeat(5000) })).toMatch(/^message\.url: /);
    expect(reason({ type: "ack", extra: 1 })).toBe(`message: unknown option "extra"`);
    expect(reason({ type: "size", width: 0, height: 10 })).toMatch(/^message\.width: /);
    expect(reason({ type: "answer", id: "q1", reply: "x".repeat(1001) })).toMatch(/^message\.reply: /);
    expect(reason({ type: "answer", id: "" })).toMatch(/^message\.id: /);
  });

  it("counts every message that acts on the page or answers for the person as input (a view-only socket ignores them)", () => {
    expect([...INPUT_TYPES].sort()).toEqual(["answer", "history", "key", "mouse", "navigate", "tab"]);
  });
});
