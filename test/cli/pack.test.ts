/**
 * The published package as a user gets it: `npm pack` of the built dist/, `npm install -g` into a scratch prefix,
 * then the installed `svc` run outside the repository (--version, open, `snapshot -i`, `sessions end --all`). The
 * tarball holds only what runs. The install prefers npm's cache (--prefer-offline); it is the slow part, 35-70 s on a
 * loaded 2-core machine.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../support/server.js";
import { ROOT, type RunResult, type Sandbox, assertBuilt, collect, expectNoChrome, expectNoProcesses, sandbox } from "./helpers.js";

const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; bin: Record<string, string> };
/** A bound on a hang of npm (a registry that does not answer), not a measure. */
const NPM_TIMEOUT_MS = 240_000;

/**
 * What the tarball may hold: the bin, dist's JavaScript and declarations, the CommonJS build of the bin's host
 * client (dist/client, with the package.json files that make it and the bin CommonJS), and the three documents.
 */
const SHIPPED = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|bin\/svc\.js|bin\/package\.json|dist\/client\/package\.json|dist\/(src|commands|client)\/.+\.js|dist\/src\/.+\.d\.ts)$/;

let sb: Sandbox;
let server: FixtureServer;
let prefix: string;
let work: string;
let packed: { filename: string; size: number; entryCount: number; files: { path: string }[] };

/** The environment npm and the installed svc run with: the sandbox's, without the npm_* variables of an enclosing `npm test`. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(sb.env)) if (!/^npm_/i.test(k)) env[k] = v;
  // The installed bin starts with `#!/usr/bin/env node`: the node running this test comes first.
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ""}`;
  return env;
}

function npm(args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync("npm", args, { cwd, env: cleanEnv(), encoding: "utf8", timeout: NPM_TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
  return r;
}

/** The installed `svc`, run in `work`. */
function installed(args: readonly string[]): Promise<RunResult> {
  return collect(spawn(join(prefix, "bin", "svc"), args, { cwd: work, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] }), 60_000);
}

beforeAll(async () => {
  assertBuilt();
  sb = sandbox();
  server = await startFixtureServer();
  const base = dirname(sb.state);
  prefix = join(base, "prefix");
  work = join(base, "elsewhere");
  mkdirSync(work);
  // --ignore-scripts: the test packs the dist/ the suite built (prepack/prepare would rebuild it).
  const out = npm(["pack", "--json", "--ignore-scripts", "--pack-destination", base], ROOT).stdout;
  packed = (JSON.parse(out) as (typeof packed)[])[0]!;
  npm(["install", "--global", "--prefix", prefix, join(base, packed.filename), "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], work);
}, NPM_TIMEOUT_MS * 2 + 30_000);

afterAll(async () => {
  if (prefix && existsSync(join(prefix, "bin", "svc"))) await installed(["sessions", "end", "--all"]).catch(() => undefined);
  sb?.cleanup();
  await server?.close();
});

describe(`the published package (${PKG.name})`, () => {
  it("holds only what runs: bin, dist's JS and types, README, LICENSE, CHANGELOG; no tests, benchmarks or source maps", () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => !SHIPPED.test(p))).toEqual([]);
    for (const needed of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", PKG.bin.svc!, "bin/package.json", "dist/client/package.json", "dist/client/commands/host/client.js", "dist/commands/main.js", "dist/src/index.js", "dist/src/index.d.ts"]) {
      expect(paths, needed).toContain(needed);
    }
  });

  it("installs globally with its svc bin, which runs --version, open and snapshot -i from an unrelated folder", async () => {
    const bin = join(prefix, "bin", "svc");
    expect(realpathSync(bin)).toBe(realpathSync(join(prefix, "lib", "node_modules", PKG.name, PKG.bin.svc!)));

    const version = await installed(["--version"]);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(PKG.version);

    const url = server.url("forms.html");
    const opened = await installed(["open", url]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain(url);
    expect(opened.stderr).toMatch(/started session \S+/);

    const snap = await installed(["snapshot", "-i"]);
    expect(snap.code, snap.stderr).toBe(0);
    expect(snap.stdout).toMatch(/\be\d+\b.*textbox.*Full name/);

    const ended = await installed(["sessions", "end", "--all"]);
    expect(ended.code, ended.stderr).toBe(0);
    // The session's Chrome (marked with the sandbox's TMPDIR) and its resident processes (run from the
    // installed package under the sandbox) are gone.
    await expectNoChrome(sb.tmp);
    await expectNoProcesses(dirname(sb.state));
  });
});
