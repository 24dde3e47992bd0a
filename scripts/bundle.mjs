// Part of `npm run build`, after tsc: bundles the programs svc starts as processes, each into the file tsc
// wrote for it, so that Node starts them without resolving and loading hundreds of ES modules one by one:
//
// - dist/commands/main.js (the CLI) and dist/commands/host/main.js (a session's host), with the modules a command
//   loads on demand split into chunks beside them (dist/commands/chunk-*.js);
// - dist/src/browser/reaper.js (the watchdog beside every Chrome svc launches), into one file.
//
// The library (dist/src, imported by users) stays as tsc wrote it. A package that finds files beside itself
// (__dirname, import.meta.url, require.resolve, WebAssembly) stays in node_modules, and so does every package
// such a package imports, so that each package has one copy in a process (two Reacts would break Ink).
// Figures: docs/development.md.
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __svcRequire } from "node:module"; const require = __svcRequire(import.meta.url);' },
};
/** Never bundled: optional native helpers of ws, found at run time when installed; devtools Ink loads only on request. */
const ALWAYS_EXTERNAL = ["bufferutil", "utf-8-validate", "react-devtools-core"];
const LOCATES_ITSELF = /__dirname|__filename|import\.meta\.url|require\.resolve|WebAssembly/;

/** The package a bundled input belongs to, or undefined for svc's own files. */
function packageOf(file) {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file)?.[1];
}

/** The packages `entryPoints` must leave in node_modules (see the header). */
async function externalsOf(entryPoints) {
  const { metafile } = await build({ ...common, entryPoints, outdir: "dist/.bundle-probe", splitting: true, write: false, metafile: true, external: ALWAYS_EXTERNAL });
  const external = new Set(ALWAYS_EXTERNAL);
  for (const file of Object.keys(metafile.inputs)) {
    const pkg = packageOf(file);
    if (pkg && !external.has(pkg) && LOCATES_ITSELF.test(readFileSync(file, "utf8"))) external.add(pkg);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [file, input] of Object.entries(metafile.inputs)) {
      if (!external.has(packageOf(file))) continue;
      for (const imported of input.imports) {
        const pkg = packageOf(imported.path);
        if (pkg && !external.has(pkg)) {
          external.add(pkg);
          grew = true;
        }
      }
    }
  }
  return [...external].sort();
}

const programs = ["dist/commands/main.js", "dist/commands/host/main.js"];
// Chunks of an earlier build are left in place (their names are hashes of their content): a session host
// started before a rebuild still loads its own. `npm pack` starts from an empty dist/ (prepack).
await build({ ...common, entryPoints: programs, outdir: "dist/commands", allowOverwrite: true, splitting: true, chunkNames: "chunk-[hash]", sourcemap: true, external: await externalsOf(programs) });

const reaper = "dist/src/browser/reaper.js";
await build({ ...common, entryPoints: [reaper], outfile: reaper, allowOverwrite: true, sourcemap: true, external: await externalsOf([reaper]) });
