/**
 * A platform session's downloads, in a folder of its own that the recorder's connection points Chrome at; on an
 * isolated server the CDP filter sends a tenant's setDownloadBehavior there too. Bounded per session and per key
 * (downloads-quota.ts): a download past either is cancelled and logged. Zipped by GET …/downloads; removed
 * `artifactsTtlS` after the session ended.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { zipSync, type Zippable } from "fflate";
import type { Owner } from "../tenant.js";
import { dataDirOf, type ServerConfig } from "../config.js";

/** Folders untouched this long are left from an earlier server run (a session lasts at most 6 h, then stays listable 1 h). */
const STALE_MS = 8 * 60 * 60 * 1000;
/** Chrome's name for a download still in progress. */
const PARTIAL = ".crdownload";

export function downloadsRoot(config: ServerConfig): string {
  return config.downloadsDir ? resolve(config.downloadsDir) : join(dataDirOf(config), "downloads");
}

/** The session's own downloads folder (its owner is already a fingerprint, its id a UUID: both safe path segments). */
export function sessionDownloadsDir(config: ServerConfig, session: { owner: Owner; id: string }): string {
  return join(downloadsRoot(config), session.owner, session.id);
}

export function createDownloadsDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function removeDownloadsDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Removes session folders an earlier run of the server left behind (their sessions are gone with it). */
export function sweepStaleDownloads(root: string, now = Date.now()): void {
  let owners: string[];
  try {
    owners = readdirSync(root);
  } catch {
    return;
  }
  for (const owner of owners) {
    const ownerDir = join(root, owner);
    try {
      for (const id of readdirSync(ownerDir)) {
        const dir = join(ownerDir, id);
        if (now - statSync(dir).mtimeMs > STALE_MS) removeDownloadsDir(dir);
      }
    } catch {
      // not a folder, or gone meanwhile
    }
  }
}

/** The finished files of a folder as a zip (an empty zip when there are none). */
export function zipDownloads(dir: string): Uint8Array {
  const files: Zippable = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // no folder: nothing was downloaded
  }
  for (const name of names) {
    if (name.endsWith(PARTIAL) || name.startsWith(".")) continue;
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
      files[name] = [readFileSync(path), { mtime: statSync(path).mtime }];
    } catch {
      // removed meanwhile
    }
  }
  return zipSync(files, { level: 6 });
}
