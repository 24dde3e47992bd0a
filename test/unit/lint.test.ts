/**
 * The lint `npm test` runs catches what it is there for: a promise nobody awaits or handles, and a promise
 * passed where a plain callback is expected. Linted through ESLint's API with the project's own config and
 * rules; only the program the typed rules see is narrowed to the probe (./lint-probe/tsconfig.json), since
 * `npm run lint` has just built the whole project's one.
 */
import { rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

// The repository's root, not process.cwd(): unit files share one process, and one may have changed directory.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const PROBE = "test/unit/lint-probe/probe.ts";
const PROBE_PROGRAM = "test/unit/lint-probe/tsconfig.json";

// One instance: its type-aware parser builds the program once for the three probes.
let eslint: ESLint | undefined;

async function rulesHit(code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: ROOT, overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: [PROBE_PROGRAM] } } } });
  // The probe is also written to disk: a program whose one file exists only in memory was, on a loaded run,
  // sometimes built without it ("not found in any of the provided projects").
  writeFileSync(resolve(ROOT, PROBE), code);
  const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, PROBE) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

afterAll(() => rmSync(resolve(ROOT, PROBE), { force: true }));

describe("lint", () => {
  it("a floating promise and a promise-returning callback are errors; awaited and voided ones are not", async () => {
    const work = "async function work(): Promise<number> { return 1; }\n";
    expect(await rulesHit(`${work}export function f(): void { work(); }\n`)).toEqual(["@typescript-eslint/no-floating-promises"]);
    expect(await rulesHit(`${work}export function f(): void { [1].forEach(async () => { await work(); }); }\n`)).toEqual(["@typescript-eslint/no-misused-promises"]);
    expect(await rulesHit(`${work}export async function f(): Promise<void> { await work(); void work(); }\n`)).toEqual([]);
  }, 60_000);
});
