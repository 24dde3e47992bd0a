/**
 * `--help` of every command the CLI has (found by walking `svc help`'s own "Commands:" lists, so a new
 * command is covered without being named here): the global flags it inherits and at least one example that
 * runs that very command; an unknown command is a usage error that suggests the nearest one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, expectOneLine, json, sandbox, svc, type Sandbox } from "./helpers.js";

let box: Sandbox;
beforeAll(() => {
  assertBuilt();
  box = sandbox();
});
afterAll(() => box.cleanup());

/** The names under "Commands:" in a help text (`help` itself left out). */
function commandsIn(help: string): string[] {
  const section = help.split(/^Commands:\s*$/m)[1];
  if (!section) return [];
  return section
    .split(/\n(?=\S)/)[0]!
    .split("\n")
    .map((l) => /^ {2}(\S+)/.exec(l)?.[1])
    .filter((n): n is string => !!n && n !== "help");
}

/**
 * Every command path that runs something (`goto`, `sessions start`, …) with its --help text. One at a time:
 * each then runs in this process (./in-process.ts), where asking siblings at once spawned ~90 `svc` processes.
 */
async function leafHelps(prefix: string[] = []): Promise<Array<{ path: string[]; help: string }>> {
  const r = await svc([...prefix, "--help"], box.env);
  expect(r.code, `${prefix.join(" ")}: ${r.stderr}`).toBe(0);
  const subs = commandsIn(r.stdout);
  if (subs.length === 0) return [{ path: prefix, help: r.stdout }];
  const leaves = [];
  for (const name of subs) leaves.push(...(await leafHelps([...prefix, name])));
  return leaves;
}

describe("svc <command> --help", () => {
  it("every command shows the global flags it inherits and an example of itself", async () => {
    const leaves = await leafHelps();
    expect(leaves.map((l) => l.path.join(" "))).toEqual(expect.arrayContaining(["goto", "act", "agent", "sessions start", "config set", "serve"]));
    for (const { path, help } of leaves) {
      const label = path.join(" ");
      const [, globalPart] = help.split(/^Global Options:$/m);
      expect(globalPart, `${label}: no Global Options section`).toBeDefined();
      for (const flag of ["--json", "--session", "--verbose", "--env"]) expect(globalPart, `${label}: ${flag}`).toContain(flag);
      const examples = help.split(/^Examples:$/m)[1]?.split("\n").filter((l) => l.startsWith("  $ ")) ?? [];
      expect(examples.length, `${label}: no examples`).toBeGreaterThan(0);
      for (const e of examples) expect(e.startsWith(`  $ svc ${label}`) || e.startsWith(`  $ svc --json ${label}`), `${label}: ${e}`).toBe(true);
    }
  }, 300_000);

  it("an unknown command is a usage error naming the nearest one", async () => {
    const r = await svc(["gotoo", "https://example.com"], box.env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(expectOneLine(r.stderr)).toBe("svc: unknown command 'gotoo' (did you mean goto?)");
    const asJson = await svc(["--json", "sesions"], box.env);
    expect(asJson.code).toBe(2);
    expect(json<{ error: { code: string; message: string } }>(asJson.stdout).error).toEqual({ code: "USAGE", message: "unknown command 'sesions' (did you mean sessions?)" });
  });
});
