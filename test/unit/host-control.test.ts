/** The session host's control requests (commands/host-client.ts): exactly one known shape, bounded. */
import { describe, expect, it } from "vitest";
import { parseControl } from "../../commands/host-client.js";

describe("host control requests", () => {
  it("takes exactly {control: emulation} and nothing else", () => {
    expect(parseControl('{"control":"emulation"}')).toEqual({ control: "emulation" });
    for (const line of ['{"control":"shutdown"}', '{"control":"emulation","argv":["x"]}', '{"argv":["goto"]}', "[]", "null", "not json", `{"control":"emulation"${" ".repeat(300)}}`]) {
      expect(parseControl(line), line.slice(0, 40)).toBeUndefined();
    }
  });
});
