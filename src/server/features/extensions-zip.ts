/**
 * An uploaded extension archive, checked and unpacked in memory before anything is written. A zip bomb is refused
 * before inflating (entry count and total from the central directory; an entry inflates into exactly its declared
 * size). Names must stay inside the folder (no absolute path, `..`, backslash, NUL, duplicate, file/folder clash);
 * only regular files. Manifest v3 only: Chrome skips v2 silently.
 */
import { unzipSync, type UnzipFileInfo } from "fflate";
import { ServiceInvalidArgumentError } from "../../index.js";

export const MAX_ENTRIES = 2000;
export const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;
/** Longest entry path accepted (Chrome's own paths on Linux stay well under PATH_MAX with this). */
const MAX_PATH_CHARS = 512;
/** Longest file or folder name (in UTF-8 bytes) Linux file systems accept (NAME_MAX). */
const MAX_COMPONENT_BYTES = 255;
/** manifest_version values this Chromium loads. */
const SUPPORTED_MANIFEST_VERSIONS = [3];

export interface ExtensionManifest {
  manifest_version: number;
  name: string;
  version: string;
  [key: string]: unknown;
}

export interface UnpackedExtension {
  /** Relative path (inside the extension folder, `/`-separated) → contents. */
  files: Map<string, Uint8Array>;
  manifest: ExtensionManifest;
}

const bad = (message: string) => new ServiceInvalidArgumentError(`file: ${message}`);

/** The extension inside `zip`, or a 400 naming what is wrong with it. */
export function unpackExtension(zip: Uint8Array): UnpackedExtension {
  if (zip.length < 22 || zip[0] !== 0x50 || zip[1] !== 0x4b) throw bad("not a zip archive");
  let entries = 0;
  let total = 0;
  const names = new Set<string>();
  /** Every folder some entry's path goes through → that entry's name (for the message). */
  const folders = new Map<string, string>();
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(zip, {
      filter: (f: UnzipFileInfo) => {
        if (++entries > MAX_ENTRIES) throw bad(`more than ${MAX_ENTRIES} entries in the zip (the limit)`);
        const path = entryPath(f.name);
        if (path === undefined) return false; // a folder entry
        if (names.has(path)) throw bad(`entry "${short(f.name)}" appears twice`);
        names.add(path);
        checkFileOrFolder(path, f.name, names, folders);
        total += f.originalSize;
        if (total > MAX_UNPACKED_BYTES) throw bad(`unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB (the limit)`);
        return true;
      },
    });
  } catch (e) {
    if (e instanceof ServiceInvalidArgumentError) throw e;
    throw bad(`not a readable zip archive (${e instanceof Error ? short(e.message) : "unreadable"})`);
  }
  const all = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(unzipped)) {
    const path = entryPath(name);
    if (path !== undefined) all.set(path, data);
  }
  const files = rooted(all);
  const raw = files.get("manifest.json");
  if (!raw) throw bad("no manifest.json at the root of the zip (or inside its one top folder)");
  return { files, manifest: parseManifest(raw) };
}

/** The entry's path inside the folder (undefined for a folder entry); a 400 when it would leave the folder. */
function entryPath(name: string): string | undefined {
  const quoted = `entry "${short(name)}"`;
  if (name.length > MAX_PATH_CHARS) throw bad(`${quoted}: a path longer than ${MAX_PATH_CHARS} characters`);
  if (name.includes("\0") || name.includes("\\")) throw bad(`${quoted}: NUL or backslash in its path`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw bad(`${quoted}: an absolute path (it would leave the extension's folder)`);
  const parts = name.split("/");
  if (parts.some((p) => p === ".." || p === ".")) throw bad(`${quoted}: a "." or ".." segment (it would leave the extension's folder)`);
  // Folder entries, and the resource forks macOS's Finder adds to every zip it makes.
  if (name.endsWith("/") || parts[0] === "__MACOSX") return undefined;
  if (parts.some((p) => p === "")) throw bad(`${quoted}: an empty segment in its path`);
  if (parts.some((p) => Buffer.byteLength(p, "utf8") > MAX_COMPONENT_BYTES)) throw bad(`${quoted}: a file or folder name longer than ${MAX_COMPONENT_BYTES} bytes`);
  return name;
}

/** A 400 when `path` is a file where another entry has a folder, or the other way round (`a` and `a/b`). */
function checkFileOrFolder(path: string, name: string, files: Set<string>, folders: Map<string, string>): void {
  const other = folders.get(path);
  if (other !== undefined) throw bad(`entry "${short(name)}": a file where entry "${short(other)}" needs a folder`);
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    if (files.has(folder)) throw bad(`entry "${short(name)}": needs a folder where entry "${short(folder)}" is a file`);
    if (!folders.has(folder)) folders.set(folder, name);
  }
}

/** The files relative to the extension's root: the zip's root, or its single top folder when every entry is in one. */
function rooted(all: Map<string, Uint8Array>): Map<string, Uint8Array> {
  if (all.has("manifest.json")) return all;
  const tops = new Set([...all.keys()].map((p) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : "")));
  const [top] = tops;
  if (tops.size !== 1 || !top) return all;
  const prefix = `${top}/`;
  return new Map([...all].map(([p, d]) => [p.slice(prefix.length), d]));
}

function parseManifest(raw: Uint8Array): ExtensionManifest {
  let m: unknown;
  try {
    m = JSON.parse(Buffer.from(raw).toString("utf8").replace(/^\uFEFF/, ""));
  } catch {
    throw bad("manifest.json is not JSON");
  }
  if (typeof m !== "object" || m === null || Array.isArray(m)) throw bad("manifest.json is not a JSON object");
  const o = m as Record<string, unknown>;
  if (!SUPPORTED_MANIFEST_VERSIONS.includes(o.manifest_version as number)) {
    throw bad(`manifest.json: manifest_version ${short(JSON.stringify(o.manifest_version) ?? "missing")} is not supported (this Chromium loads only manifest_version 3)`);
  }
  for (const field of ["name", "version"]) {
    if (typeof o[field] !== "string" || !(o[field] as string).trim()) throw bad(`manifest.json: ${field} is missing (a non-empty string is required)`);
  }
  return o as ExtensionManifest;
}

function short(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
