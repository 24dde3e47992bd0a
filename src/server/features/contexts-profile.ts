/**
 * The part of a Chrome profile a context keeps: web storage as Chrome writes it on a clean exit
 * (Local Storage and IndexedDB, LevelDB directories under `Default/`). Cookies are not taken from the
 * profile's Cookies database — it never holds session-only cookies — but over CDP (features/contexts.ts keeps them).
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

/** Profile directories a context carries from one session to the next. */
export const PROFILE_PARTS = ["Default/Local Storage", "Default/IndexedDB"] as const;

/** Every regular file under PROFILE_PARTS of `profileDir`, by "/"-separated relative path; stops past `maxBytes`. */
export function readProfileParts(profileDir: string, maxBytes: number): { files: Record<string, Uint8Array>; bytes: number } {
  const files: Record<string, Uint8Array> = {};
  let bytes = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (bytes > maxBytes) return;
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) {
        bytes += st.size;
        if (bytes <= maxBytes) files[relative(profileDir, path).split(sep).join("/")] = readFileSync(path);
      }
    }
  };
  for (const part of PROFILE_PARTS) walk(join(profileDir, part));
  return { files, bytes };
}

/** Writes saved parts into a fresh profile directory; a path outside PROFILE_PARTS is ignored. */
export function writeProfileParts(profileDir: string, files: Record<string, Uint8Array>): void {
  for (const [name, data] of Object.entries(files)) {
    const rel = normalize(name);
    if (rel.startsWith("..") || rel.startsWith(sep) || !PROFILE_PARTS.some((p) => rel.startsWith(`${normalize(p)}${sep}`))) continue;
    const path = join(profileDir, rel);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, data, { mode: 0o600 });
  }
}
