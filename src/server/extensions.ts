/**
 * Uploaded Chrome extensions (`/v1/extensions`), kept per API key on this server's disk, and the session
 * feature that starts a session's Chrome with one loaded (`extensionId`, top level or in browserSettings).
 *
 * Layout: `<dataDir>/extensions/<key fingerprint>/<id>/` is the unpacked extension Chrome loads, and
 * `<id>.json` beside it its record. An upload is written to a temp folder and renamed into place, then its
 * record is written (atomically): a crash leaves at most a folder without a record, which is removed at
 * the next start. Another key's extension does not exist for a key (404, like an unknown id).
 *
 * Deleting an extension a running session uses removes its record at once (404 from then on) and its
 * folder when the last such session ends: Chrome reads an unpacked extension's files while it runs.
 *
 * Cluster mode: the folder is on the replica that took the upload; a session started on another replica
 * with that id gets 404 (the store does not carry extensions). Route uploads and session starts of one
 * key to one replica (sticky by key), or upload to each.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Owner } from "./auth.js";
import type { ServerConfig } from "./config.js";
import { unpackExtension, type ExtensionManifest } from "./extensions-zip.js";
import { HttpError } from "./http-error.js";
import type { SessionFeature } from "./session-features.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { clip } from "../util/zod.js";

/** The SDK's Extension shape. */
export interface Extension {
  id: string;
  createdAt: string;
  fileName: string;
  projectId: string;
  updatedAt: string;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The server's data directory (`--data-dir`); default `server-data` beside the cache directory. */
export function dataDirOf(config: ServerConfig): string {
  return resolve(config.dataDir ?? join(dirname(config.cacheDir), "server-data"));
}

/**
 * The id Chrome gives an extension: from the manifest's `key` when it has one, else from the absolute path
 * of its unpacked folder (SHA-256, first 16 bytes, each hex digit 0-f written as a-p).
 */
export function chromeExtensionId(dir: string, manifest?: Record<string, unknown>): string {
  const source = typeof manifest?.key === "string" ? Buffer.from(manifest.key, "base64") : Buffer.from(resolve(dir));
  const hex = createHash("sha256").update(source).digest("hex").slice(0, 32);
  return [...hex].map((ch) => String.fromCharCode(97 + parseInt(ch, 16))).join("");
}

export interface StoredExtension {
  record: Extension;
  /** The unpacked folder Chrome loads. */
  dir: string;
  manifest: ExtensionManifest;
  /** The id Chrome gives it when loaded from `dir`. */
  chromeId: string;
}

export class ExtensionStore {
  private readonly root: string;
  /** Folders in use by running sessions → how many; a deleted one is removed when its count drops to 0. */
  private readonly inUse = new Map<string, number>();
  private readonly deleted = new Set<string>();

  constructor(
    dataDir: string,
    /** Checks an upload's manifest beyond the basics (isolation's permission policy); throws a 400. */
    private readonly policy: (manifest: ExtensionManifest) => void = () => {},
  ) {
    this.root = join(dataDir, "extensions");
    this.sweep();
  }

  /** Unpacks, checks and stores an upload; its record. */
  create(owner: Owner, fileName: string, zip: Uint8Array): Extension {
    const { files, manifest } = unpackExtension(zip);
    this.policy(manifest);
    const id = randomUUID();
    const ownerDir = join(this.root, owner);
    mkdirSync(ownerDir, { recursive: true, mode: 0o700 });
    const tmp = join(ownerDir, `.tmp-${id}`);
    try {
      for (const [path, data] of files) {
        const target = join(tmp, path);
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, data, { mode: 0o600, flag: "wx" });
      }
      renameSync(tmp, join(ownerDir, id));
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    const now = new Date().toISOString();
    const record: Extension = { id, createdAt: now, fileName, projectId: owner, updatedAt: now };
    writeFileAtomic(join(ownerDir, `${id}.json`), JSON.stringify({ record, manifest }), 0o600);
    return record;
  }

  /** The key's extension, or a 404 (unknown, deleted, or another key's). */
  get(owner: Owner, id: string, field = "extension"): StoredExtension {
    const notFound = () => new HttpError(404, `${field} ${clip(id)} not found`);
    if (!ID.test(id)) throw notFound();
    const dir = join(this.root, owner, id);
    let saved: { record: Extension; manifest: ExtensionManifest };
    try {
      saved = JSON.parse(readFileSync(`${dir}.json`, "utf8")) as typeof saved;
    } catch {
      throw notFound();
    }
    if (!existsSync(dir)) throw notFound();
    return { ...saved, dir, chromeId: chromeExtensionId(dir, saved.manifest) };
  }

  /** Removes the key's extension (404 when it has none by that id); a folder in use goes when its sessions end. */
  delete(owner: Owner, id: string): void {
    const { dir } = this.get(owner, id);
    rmSync(`${dir}.json`, { force: true });
    if (this.inUse.has(dir)) this.deleted.add(dir);
    else rmSync(dir, { recursive: true, force: true });
  }

  /** A session uses `dir` until the returned function is called. */
  hold(dir: string): () => void {
    this.inUse.set(dir, (this.inUse.get(dir) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.inUse.get(dir) ?? 1) - 1;
      if (n > 0) return void this.inUse.set(dir, n);
      this.inUse.delete(dir);
      if (this.deleted.delete(dir)) rmSync(dir, { recursive: true, force: true });
    };
  }

  /** Half-written uploads and folders whose record is gone (a crash between the two) are removed. */
  private sweep(): void {
    let owners: string[];
    try {
      owners = readdirSync(this.root);
    } catch {
      return;
    }
    for (const owner of owners) {
      const ownerDir = join(this.root, owner);
      let names: string[];
      try {
        names = readdirSync(ownerDir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (name.startsWith(".tmp-") || (ID.test(name) && !names.includes(`${name}.json`))) rmSync(join(ownerDir, name), { recursive: true, force: true });
      }
    }
  }
}

/** The session's `extensionId` (top level, as the SDK and Stagehand 4.x send it, or in browserSettings). */
function requestedExtension(params: Record<string, unknown>): { id: string; field: string } | undefined {
  const top = params.extensionId;
  const nested = (params.browserSettings as Record<string, unknown> | undefined)?.extensionId;
  if (top !== undefined) return { id: String(top), field: "extensionId" };
  if (nested !== undefined) return { id: String(nested), field: "browserSettings.extensionId" };
  return undefined;
}

/** Starts a session's Chrome with its `extensionId` loaded; an unknown id is a 404 before Chrome starts. */
export function extensionsFeature(store: ExtensionStore, onLoaded?: (sessionId: string, chromeIds: string[] | undefined) => void): SessionFeature {
  return {
    name: "extensions",
    prepare(start) {
      const wanted = requestedExtension(start.params as Record<string, unknown>);
      if (!wanted) return undefined;
      const ext = store.get(start.owner, wanted.id, wanted.field);
      const release = store.hold(ext.dir);
      onLoaded?.(start.id, [ext.chromeId]);
      return {
        args: [`--load-extension=${ext.dir}`],
        ended() {
          onLoaded?.(start.id, undefined);
          release();
        },
      };
    },
  };
}
