/** The session host's control requests (commands/host-control.ts): known names with valid arguments only, bounded. */
import { describe, expect, it } from "vitest";
import { parseControl } from "../../commands/host-control.js";
import { CONTROL_LINE_BYTES } from "../../commands/host-ask.js";

describe("host control requests", () => {
  it("takes a declared control with its arguments and nothing else", () => {
    expect(parseControl('{"control":"emulation"}')).toEqual({ name: "emulation", args: {} });
    for (const line of ['{"control":"shutdown"}', '{"control":"emulation","argv":["x"]}', '{"control":"toString"}', '{"control":"__proto__"}', '{"argv":["goto"]}', "[]", "null", "not json", `{"control":"emulation","x":"${"a".repeat(CONTROL_LINE_BYTES)}"}`]) {
      expect(parseControl(line), line.slice(0, 40)).toBeUndefined();
    }
  });
});
