/**
 * `svc agent --ask-human` through the built CLI: the agent's question goes to stderr, a line on stdin answers it
 * (the reply reaches the next step), stdin closed fails the ask at once rather than waiting out the timeout,
 * and the flags are validated before any browser starts.
 */
import { describe, expect, it } from "vitest";
import { scriptSteps, step } from "../e2e/agent-support.js";
import { expectOneLine, useModelWorld, svc } from "./helpers.js";

const { server, fake, sb } = useModelWorld();


const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);

describe("svc agent --ask-human", () => {
  it("asks on stderr; a line on stdin answers and its reply reaches the next step", async () => {
    scriptSteps(fake, step("askHuman", { message: "log in as yourself" }), step("done", { message: "logged in", success: true }));
    const r = await svc(["agent", "log in", "--url", server.url("forms.html"), "--ask-human", "--ask-human-timeout", "120"], sb.env, { input: "I am logged in\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^svc: the agent asks you: log in as yourself\n {5}press Enter when done, or type a reply and Enter \(waiting up to 120 s\)\n/);
    const out = lines(r.stdout);
    expect(out.find((l) => l.type === "ask_human")).toMatchObject({ message: "log in as yourself", timeoutMs: 120_000 });
    expect(out.find((l) => l.type === "human_reply")).toMatchObject({ answered: true, reply: "I am logged in" });
    expect(JSON.stringify(fake.requestsFor("agent_step")[1]!.body)).toContain("I am logged in");
  });

  it("stdin closed: the ask fails at once with the reason, and the run goes on", async () => {
    scriptSteps(fake, step("askHuman", { message: "solve the check" }), step("done", { message: "nobody there", success: false }));
    const r = await svc(["agent", "needs a person", "--url", server.url("forms.html"), "--ask-human"], sb.env, { input: "" });
    expect(r.code).toBe(11);
    const out = lines(r.stdout);
    expect(out.find((l) => l.type === "human_reply")).toMatchObject({ answered: false });
    expect(out.find((l) => l.type === "tool_result" && l.tool === "askHuman")).toMatchObject({ ok: false, summary: expect.stringMatching(/nobody can answer: stdin is closed/) });
  });

  it("bad flags fail before any browser (exit 2)", async () => {
    for (const [args, message] of [
      [["--ask-human-timeout", "60"], /--ask-human-timeout goes with --ask-human/],
      [["--ask-human", "--ask-human-timeout", "0"], /invalid --ask-human-timeout: expected a positive whole number/],
      [["--ask-human", "--ask-human-timeout", "7200"], /invalid --ask-human-timeout: must be at most 3600/],
    ] as const) {
      const bad = await svc(["agent", "do it", ...args], sb.env);
      expect([bad.code, expectOneLine(bad.stderr)]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(fake.requests).toHaveLength(0);
  });
});
