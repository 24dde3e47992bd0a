/**
 * The lint `npm test` runs catches what it is there for: a promise nobody awaits or handles, and a promise
 * passed where a plain callback is expected. Linted through ESLint's API with the project's own config.
 */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// Linted as a file of a project of its own (lint-probe/tsconfig.json: that file and the repository's compiler
// options), so the typed rules build a program of one file, not the repository's (~12 s of CPU, now ~2).
const PROBE = "test/unit/lint-probe/probe.ts";

// One instance: its type-aware parser builds the program once for the three probes.
let eslint: ESLint | undefined;

async function rulesHit(code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: process.cwd() });
  const [result] = await eslint.lintText(code, { filePath: PROBE });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe("lint", () => {
  it("a floating promise and a promise-returning callback are errors; awaited and voided ones are not", async () => {
    const work = "async function work(): Promise<number> { return 1; }\n";
    expect(await rulesHit(`${work}export function f(): void { work(); }\n`)).toEqual(["@typescript-eslint/no-floating-promises"]);
    expect(await rulesHit(`${work}export function f(): void { [1].forEach(async () => { await work(); }); }\n`)).toEqual(["@typescript-eslint/no-misused-promises"]);
    expect(await rulesHit(`${work}export async function f(): Promise<void> { await work(); void work(); }\n`)).toEqual([]);
  }, 240_000);
});
