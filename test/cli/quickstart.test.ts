/**
 * The README's quick start, run exactly as it is printed: every ```sh block under "## Quick start" is read
 * from README.md, `npx svc` becomes the built bin and `$PWD` the repo root (nothing else is changed), and
 * each line runs in a shell, in order, in a sandboxed state dir. Each must exit 0; the extract line's sample
 * (`# … one line reads: <line>`) must be what it really prints, and the ref step must land on that field.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ROOT, type RunResult, type Sandbox, assertBuilt, collect, expectNoProcesses, sandbox, svc } from "./helpers.js";

/** The shell lines of the quick start's ```sh blocks, in order. */
function quickStartLines(readme: string): string[] {
  const start = readme.indexOf("\n## Quick start");
  if (start < 0) throw new Error('README.md has no "## Quick start" section');
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const lines: string[] = [];
  for (const m of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of m[1]!.split("\n")) if (line.trim() && !line.trim().startsWith("#")) lines.push(line);
  }
  return lines;
}

function run(line: string, sb: Sandbox): Promise<RunResult> {
  const command = line.replaceAll("npx svc", `"${process.execPath}" "${BIN}"`).replaceAll("$PWD", ROOT);
  // The sandbox's tmp dir as the working dir: files the quick start writes (page.png) stay out of the repo.
  const child = spawn("sh", ["-c", command], { env: sb.env, cwd: sb.tmp, stdio: ["pipe", "pipe", "pipe"] });
  return collect(child, 60_000);
}

describe("README quick start", () => {
  let sb: Sandbox;
  beforeAll(() => {
    assertBuilt();
    sb = sandbox();
  });
  afterAll(() => sb.cleanup());

  it("runs as printed: every line exits 0 and the ref printed by svc extract acts on that field", async () => {
    const lines = quickStartLines(readFileSync(join(ROOT, "README.md"), "utf8"));
    const refStep = lines.findIndex((l) => /"selector":"e\d+"/.test(l));
    const extractStep = lines.findIndex((l) => /^npx svc extract\s*(#|$)/.test(l));
    expect(refStep, "the quick start acts on a ref").toBeGreaterThan(0);
    expect(extractStep, "the quick start prints refs with svc extract").toBeGreaterThanOrEqual(0);
    expect(extractStep).toBeLessThan(refStep);
    const sample = /one line reads: (.+)$/.exec(lines[extractStep]!)?.[1]?.trim();
    expect(sample, "the extract line says which line it prints").toBeTruthy();
    const ref = /"selector":"(e\d+)"/.exec(lines[refStep]!)![1]!;
    expect(sample!.startsWith(`${ref} `), `the sample line names the ref the act line uses (${ref})`).toBe(true);

    for (const [i, line] of lines.entries()) {
      const r = await run(line, sb);
      expect(r.code, `\`${line}\` exited ${r.code}: ${r.stderr}`).toBe(0);
      if (i === extractStep) expect(r.stdout.split("\n").map((l) => l.trim())).toContain(sample);
      if (i === refStep) {
        // What the field holds now, read by the session itself: the ref's field got the typed text.
        const after = await svc(["--json", "extract"], sb.env);
        expect(after.code, after.stderr).toBe(0);
        const text = (JSON.parse(after.stdout) as { pageText: string }).pageText;
        expect(text).toContain(`${sample}: Ada Lovelace`);
        // …and no other field did.
        expect(text.split("\n").filter((l) => /^\s*e\d+ /.test(l) && l.includes("Lovelace"))).toHaveLength(1);
      }
    }
    expect(existsSync(join(sb.tmp, "page.png"))).toBe(true);
    await expectNoProcesses(sb.tmp);
  });
});
