/** The session host's control requests (commands/host/control.ts): known names with valid arguments only, bounded. */
import { describe, expect, it } from "vitest";
import { parseControl } from "../../commands/host/control.js";
import { CONTROL_LINE_BYTES } from "../../commands/host/ask.js";

describe("host control requests", () => {
  it("takes a declared control with its arguments and nothing else", () => {
    expect(parseControl('{"control":"emulation"}')).toEqual({ name: "emulation", args: {} });
    expect(parseControl('{"control":"trace-stop","path":"/tmp/t.json"}')).toEqual({ name: "trace-stop", args: { path: "/tmp/t.json" } });
    expect(parseControl('{"control":"trace-start","categories":["toplevel"],"screenshotsOf":{}}')).toEqual({ name: "trace-start", args: { categories: ["toplevel"], screenshotsOf: {} } });
    for (const line of ['{"control":"trace-stop","path":"relative.json"}', '{"control":"trace-start","categories":[]}', '{"control":"routes","pattern":"x"}']) expect(parseControl(line), line).toBeUndefined();
    for (const line of ['{"control":"shutdown"}', '{"control":"emulation","argv":["x"]}', '{"control":"toString"}', '{"control":"__proto__"}', '{"argv":["goto"]}', "[]", "null", "not json", `{"control":"emulation","x":"${"a".repeat(CONTROL_LINE_BYTES)}"}`]) {
      expect(parseControl(line), line.slice(0, 40)).toBeUndefined();
    }
  });
});
