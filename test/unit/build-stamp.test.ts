/**
 * scripts/build-stamp.mjs, which lets `npm test` skip a build of sources dist/ was already built from: fresh only
 * after a build wrote the stamp, and no longer once a source, a tsconfig or the lock changes, an output is missing,
 * or a build started and cleared it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script, without declarations
import { OUTPUTS } from "../../scripts/build-stamp.mjs";

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), "../../scripts/build-stamp.mjs");
const repo = mkdtempSync(join(tmpdir(), "svc-build-stamp-"));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function put(file: string, text: string): void {
  mkdirSync(dirname(join(repo, file)), { recursive: true });
  writeFileSync(join(repo, file), text);
}
function stamp(mode: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, mode], { cwd: repo, encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe("the build stamp", () => {
  it("is fresh after a build wrote it, and stale after any change to what the build reads", () => {
    for (const f of ["src/index.ts", "src/browser/launch.ts", "commands/main.ts", "tsconfig.json", "package.json", "package-lock.json", "scripts/bundle.mjs"]) put(f, `// ${f}\n`);
    for (const f of OUTPUTS as string[]) put(f, "built\n");
    expect(stamp("fresh").code).toBe(1); // never built
    expect(stamp("write").code).toBe(0);
    expect(stamp("fresh")).toEqual({ code: 0, out: "build: dist/ was built from these sources (dist/.build-stamp); not building again\n" });

    put("src/browser/launch.ts", "// changed\n");
    expect(stamp("fresh").code).toBe(1);
    stamp("write");
    put("commands/new-command.ts", "// added\n");
    expect(stamp("fresh").code).toBe(1);
    stamp("write");
    put("package-lock.json", "// another dependency\n");
    expect(stamp("fresh").code).toBe(1);
    stamp("write");
    put("test/unit/some.test.ts", "// tests and docs are not built\n");
    put("README.md", "docs\n");
    expect(stamp("fresh").code).toBe(0);

    rmSync(join(repo, "dist/commands/host/main.js"));
    expect(stamp("fresh").code).toBe(1);
    put("dist/commands/host/main.js", "built\n");
    expect(stamp("fresh").code).toBe(0);
    expect(stamp("clear").code).toBe(0); // a build starts: until it ends, nothing is fresh
    expect(stamp("fresh").code).toBe(1);
    expect(stamp("nonsense").code).toBe(2);
  });
});
