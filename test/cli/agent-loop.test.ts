/**
 * `svc agent` loop flags through the built CLI (the fake model, in this process, answers the same click every
 * step): a loop stop exits 11 naming the loop, the loop events are JSON lines, and the flags are validated
 * before any browser starts.
 */
import { describe, expect, it } from "vitest";
import { loopingModel } from "../support/fake-model/local-modes.js";
import { scriptTimes } from "../e2e/agent-support.js";
import { expectOneLine, useModelWorld, svc } from "./helpers.js";

const { server, fake, sb } = useModelWorld();

describe("svc agent loop detection flags", () => {
  it("--loop-repeats 2 --loop-warnings 0: stopped at the loop, exit 11, a loop event line", async () => {
    // The button's first click changes the page ("clicked: child-button"); later clicks change nothing.
    scriptTimes(fake, loopingModel("Child button"), 10);
    const r = await svc(["agent", "press the button until something new happens", "--url", server.url("frame-child.html"), "--loop-repeats", "2", "--loop-warnings", "0"], sb.env);
    expect(r.code, r.stderr).toBe(11);
    expect(expectOneLine(r.stderr)).toMatch(/^svc: agent did not complete: stopped: the agent is stuck in a loop: it repeated perform \{"ref":"e\d+","method":"click","arguments":\[\]\} 2 times in a row with no change to the page$/);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    expect(out.filter((l) => l.type === "loop")).toEqual([expect.objectContaining({ schemaVersion: 1, tool: "perform", count: 2, warning: 1, stopped: true })]);
    expect(out.at(-1)).toMatchObject({ type: "result", result: { completed: false, metadata: { stopReason: "loop", steps: 3 } } });
  });

  it("bad loop flags fail before any browser (exit 2)", async () => {
    for (const [args, message] of [
      [["--loop-repeats", "1"], /invalid --loop-repeats: must be at least 2/],
      [["--loop-warnings", "-1"], /invalid --loop-warnings: expected a whole number \(0 or more\)/],
      [["--no-loop-detection", "--loop-repeats", "4"], /--no-loop-detection cannot be combined/],
    ] as const) {
      const bad = await svc(["agent", "do it", ...args], sb.env);
      expect([bad.code, expectOneLine(bad.stderr)]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(fake.requests).toHaveLength(0);
  });
});
