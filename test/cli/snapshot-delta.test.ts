/**
 * `svc snapshot --delta`, `--max-tokens` and `--from` through the built CLI on a live session: each command
 * builds its snapshot afresh, so the base of a delta is the outline the session's state dir kept (0600).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/snapshot/index.js";
import { LARGE_ROWS } from "../support/server.js";
import { expectOneLine, json, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const run = (...args: string[]) => svc(args, world.sb.env);

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  expect(r.stderr, args.join(" ")).toBe("");
  expect(r.code, args.join(" ")).toBe(0);
  return r.stdout.replace(/\n$/, "");
}

const refsIn = (text: string) => [...text.matchAll(/^\s*(e\d+) /gm)].map((m) => m[1]!);

describe("svc snapshot --delta", () => {
  it("prints only the field that changed, keeps its ref, and the kept outline is a 0600 file; a navigation gives a full snapshot marked as one", async () => {
    await ok("goto", world.server.url("forms.html"));
    const before = await ok("snapshot", "-i");
    const name = /^\s*(e\d+) textbox Full name$/m.exec(before)![1]!;
    await ok("fill", name, "Ada");

    const delta = await ok("snapshot", "-i", "--delta");
    expect(delta.split("\n")).toEqual(["[delta since the last snapshot: 1 changed, 0 added, 0 removed]", `~ ${name} textbox Full name: Ada`]);
    const dir = join(world.sb.state, "sessions");
    const kept = readdirSync(dir).filter((f) => f.endsWith(".outline"));
    expect(kept).toHaveLength(1);
    expect(statSync(join(dir, kept[0]!)).mode & 0o777).toBe(0o600);

    await ok("goto", world.server.url("controls.html"));
    const full = (await ok("snapshot", "-i", "--delta")).split("\n");
    expect(full[0]).toBe("[full snapshot: page changed]");
    expect(full.slice(1).join("\n")).toBe(await ok("snapshot", "-i"));
  });

  it("--max-tokens 2000 -i on large.html cuts ref lines within the budget and says how to see the rest; --from shows it", async () => {
    await ok("goto", world.server.url("large.html"));
    const r = json<{ snapshot: string; refs: Record<string, unknown>; tokens: number }>(await ok("--json", "snapshot", "-i", "--max-tokens", "2000"));
    expect(estimateTokens(r.snapshot)).toBeLessThanOrEqual(2000);
    expect(r.tokens).toBeLessThanOrEqual(2000);
    const m = /^… \d+ lines left out \((\d+) with refs; token budget\): the rest: --from (e\d+), a part: -s <selector>$/.exec(r.snapshot.split("\n").at(-1)!);
    expect(m, r.snapshot.split("\n").at(-1)).not.toBeNull();
    const shown = refsIn(r.snapshot);
    expect(Object.keys(r.refs)).toEqual(shown); // the refs the text shows, and only those
    expect(shown.length + Number(m![1])).toBe(2 * LARGE_ROWS + 1);

    const rest = await ok("snapshot", "-i", "--from", m![2]!);
    expect(refsIn(rest)[0]).toBe(m![2]);
    expect(refsIn(rest)).toHaveLength(Number(m![1]));

    const bad = await run("snapshot", "--from", "row-3");
    expect(bad.code).toBe(2);
    expect(expectOneLine(bad.stderr)).toMatch(/from: expected a ref such as e12/);
  });
});
