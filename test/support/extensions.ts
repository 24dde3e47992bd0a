/** Fixture extensions (fixtures/extensions/<name>) zipped in the test with fflate, optionally changed. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync, type Zippable } from "fflate";

export const EXTENSIONS_DIR = join(import.meta.dirname, "..", "..", "fixtures", "extensions");

export interface ZipOptions {
  /** Put every file under this top folder. */
  folder?: string;
  /** Merged over the fixture's manifest (undefined removes a field), or the manifest's whole text. */
  manifest?: Record<string, unknown> | string;
  /** More entries (fflate's Zippable: name → bytes, or [bytes, options]). */
  extra?: Zippable;
}

/** The fixture extension `name` as a zip. */
export function zipExtension(name: string, opts: ZipOptions = {}): Uint8Array {
  const dir = join(EXTENSIONS_DIR, name);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const files: Zippable = {};
  for (const f of readdirSync(dir)) if (statSync(join(dir, f)).isFile()) files[f] = readFileSync(join(dir, f));
  files["manifest.json"] = strToU8(typeof opts.manifest === "string" ? opts.manifest : JSON.stringify({ ...manifest, ...opts.manifest }));
  Object.assign(files, opts.extra ?? {});
  return zipSync(opts.folder ? { [opts.folder]: files } : files);
}
