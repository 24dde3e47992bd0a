/**
 * What the published package depends on: every package the shipped code (src/, commands/) loads is in `dependencies`,
 * so a global install has it, and every dependency is used by that code, so test- or bench-only packages stay out of
 * users' installs. The tarball itself: test/cli/pack.test.ts.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IMPORTS, type Import, ROOT } from "../support/imports.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const BUILTINS = new Set(builtinModules);
const fmt = (i: Import) => `${i.from}:${i.line} "${i.spec}"`;

/** What is wrong with these imports given `dependencies`: runtime imports of undeclared packages, unused dependencies. */
function problems(imports: readonly Import[], dependencies: Record<string, string>): string[] {
  const bare = imports.filter((i): i is Import & { pkg: string } => i.pkg !== undefined && !BUILTINS.has(i.pkg));
  const missing = bare.filter((i) => !i.typeOnly && !Object.hasOwn(dependencies, i.pkg)).map((i) => `${fmt(i)}: loaded at run time but not in dependencies`);
  const used = new Set(bare.map((i) => i.pkg));
  const unused = Object.keys(dependencies).filter((d) => !used.has(d)).map((d) => `${d}: in dependencies but no file of src/ or commands/ imports it`);
  return [...missing, ...unused];
}

describe("package.json dependencies", () => {
  it("are exactly what src/ and commands/ use: every package loaded at run time, nothing only the tests or benchmarks use", () => {
    expect(IMPORTS.some((i) => i.pkg === "rrweb" && i.dynamic), "createRequire(…).resolve(\"rrweb\") is seen").toBe(true);
    expect(problems(IMPORTS, pkg.dependencies)).toEqual([]);
  });

  it("the check rejects what it should", () => {
    const at = (spec: string, typeOnly = false): Import => ({ from: "src/x.ts", spec, target: undefined, pkg: spec.split("/")[0]!, typeOnly, line: 1 });
    expect(problems([at("zod")], { zod: "1" })).toEqual([]);
    expect(problems([at("fs"), at("zod")], { zod: "1" })).toEqual([]);
    expect(problems([at("vitest")], {})).toEqual(['src/x.ts:1 "vitest": loaded at run time but not in dependencies']);
    expect(problems([at("zod")], { zod: "1", "playwright-core": "1" })).toEqual(["playwright-core: in dependencies but no file of src/ or commands/ imports it"]);
    // A type-only import needs no runtime dependency, yet it counts as a use (published types name it).
    expect(problems([at("devtools-protocol", true)], {})).toEqual([]);
    expect(problems([at("devtools-protocol", true)], { "devtools-protocol": "1" })).toEqual([]);
  });

  it("keep the benchmark and test tools in devDependencies", () => {
    const shipped = new Set(Object.keys(pkg.dependencies));
    expect(Object.keys(pkg.devDependencies).filter((d) => shipped.has(d))).toEqual([]);
  });
});
