import { describe, expect, it } from "vitest";
import { lineDiff } from "../../src/mcp/diff.js";

describe("lineDiff (what an MCP tool result shows when the page changed a little)", () => {
  it("lists only the lines gone and the lines new, in order", () => {
    const before = ["h1 Forms", "e3 textbox Name", "e4 checkbox Subscribe", "e5 button Submit"].join("\n");
    const after = ["h1 Forms", "e3 textbox Name: Ada", "e4 checkbox Subscribe", "e5 button Submit", "Thanks, Ada"].join("\n");
    expect(lineDiff(before, after)).toBe(["- e3 textbox Name", "+ e3 textbox Name: Ada", "+ Thanks, Ada"].join("\n"));
  });

  it("is empty when nothing changed, and keeps repeated lines apart", () => {
    expect(lineDiff("a\nb", "a\nb")).toBe("");
    expect(lineDiff("x\nx\ny", "x\ny")).toBe("- x");
  });

  it("gives up (undefined: send the whole snapshot) when the page changed beyond a bounded diff", () => {
    const lines = (p: string) => Array.from({ length: 3000 }, (_, i) => `${p}${i}`).join("\n");
    expect(lineDiff(lines("a"), lines("b"))).toBeUndefined();
  });
});
