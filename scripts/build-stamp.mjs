// The build's stamp, dist/.build-stamp: a hash of all `npm run build` reads from the repository (the sources, the
// tsconfigs, the bundle script, the locked dependencies). `npm run build` clears it first and writes it last, so a
// build that failed leaves none. `npm test` builds only when the stamp is missing or differs, so a test run right
// after `npm ci` (whose `prepare` built dist/), or after a change to tests or docs only, does not build again.
//
//   node scripts/build-stamp.mjs clear|write|fresh     (fresh: exit 0 when dist/ was built from these sources)
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const STAMP = "dist/.build-stamp";
const INPUTS = ["src", "commands", "tsconfig.json", "tsconfig.build.json", "tsconfig.client.json", "scripts/bundle.mjs", "package.json", "package-lock.json"];
/** Outputs without which dist/ is no whole build, whatever the stamp says. */
export const OUTPUTS = ["dist/src/index.js", "dist/src/browser/reaper.js", "dist/commands/main.js", "dist/commands/host/main.js", "dist/client/commands/host/client.js"];

/** Every file under `path` (or `path` itself), in a stable order. */
function filesOf(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}

function digest() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap(filesOf)) hash.update(`${file}\0`).update(readFileSync(file)).update("\0");
  return hash.digest("hex");
}

function main(mode) {
  if (mode === "clear") {
    rmSync(STAMP, { force: true });
  } else if (mode === "write") {
    writeFileSync(STAMP, `${digest()}\n`);
  } else if (mode === "fresh") {
    // The outputs first: a missing one makes hashing the sources pointless.
    const fresh = OUTPUTS.every((f) => existsSync(f)) && existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === digest();
    if (fresh) console.log(`build: dist/ was built from these sources (${STAMP}); not building again`);
    process.exit(fresh ? 0 : 1);
  } else {
    console.error("usage: node scripts/build-stamp.mjs clear|write|fresh");
    process.exit(2);
  }
}

// Run as a program; imported (its test reads OUTPUTS), it does nothing. Node gives a module its real path, so the
// script's path is compared as one too (a clone under a symlinked folder, as /tmp is on macOS).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv[2]);
