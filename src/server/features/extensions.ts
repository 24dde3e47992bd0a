/**
 * Uploaded Chrome extensions (`/v1/extensions`), per API key on this server's disk, and the feature that starts a
 * session with one. An upload is renamed into place before its record is written, so a crash leaves at most a
 * record-less folder, removed at the next start. Each session loads a copy of its own, so deleting a running
 * extension is safe. Clusters: docs/cluster.md.
 */
import { randomUUID } from "node:crypto";
import { cpSync, existsSync, realpathSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Owner } from "../tenant.js";
import { unpackExtension, type ExtensionManifest } from "./extensions-zip.js";
import type { FeatureRun, SessionFeature, SessionStart } from "../platform/feature.js";
import { loadedExtension, loadWithoutFileAccess } from "../../internal.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { clip } from "../../util/zod.js";
import { ConflictError, NotFoundError } from "../failures.js";
import { ServiceInvalidArgumentError } from "../../index.js";

/** The SDK's Extension shape. */
export interface Extension {
  id: string;
  createdAt: string;
  fileName: string;
  projectId: string;
  updatedAt: string;
}

/** Extensions one key may keep (a client that uploads per session and never deletes cannot fill the disk). */
export const MAX_EXTENSIONS_PER_KEY = 100;

/**
 * The unpacked bytes all of one key's extensions may take (config.ts extensionsMaxBytesPerKey): a small zip
 * can unpack to 64 MiB, so the count alone does not bound the disk. Past it an upload is a 409.
 */
export interface ExtensionLimits {
  maxBytesPerKey: number;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface StoredExtension {
  record: Extension;
  /** The unpacked folder Chrome loads. */
  dir: string;
  manifest: ExtensionManifest;
}

export class ExtensionStore {
  private readonly root: string;

  constructor(
    dataDir: string,
    /** Checks an upload's manifest beyond the basics (isolation's permission policy); throws a 400. */
    private readonly policy: (manifest: ExtensionManifest) => void = () => {},
    private readonly limits: ExtensionLimits = { maxBytesPerKey: Number.MAX_SAFE_INTEGER },
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
    if (readdirSync(ownerDir).filter((n) => n.endsWith(".json")).length >= MAX_EXTENSIONS_PER_KEY) {
      throw new ConflictError(`extensions: this key keeps ${MAX_EXTENSIONS_PER_KEY} extensions already (the limit): delete one first`);
    }
    const bytes = [...files.values()].reduce((t, d) => t + d.length, 0);
    const used = this.usedBytes(ownerDir);
    if (used + bytes > this.limits.maxBytesPerKey) {
      const message = `extensions: this upload unpacks to ${bytes} bytes and the key's extensions hold ${used}; together over the key's quota of ${this.limits.maxBytesPerKey} bytes (--extensions-max-key): delete one first`;
      throw new ConflictError(message, { code: "EXTENSIONS_QUOTA" });
    }
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
    writeFileAtomic(join(ownerDir, `${id}.json`), JSON.stringify({ record, manifest, bytes }), 0o600);
    return record;
  }

  /** Unpacked bytes of the key's extensions, from their records (a record without the figure: its files, measured). */
  private usedBytes(ownerDir: string): number {
    let total = 0;
    for (const name of readdirSync(ownerDir)) {
      if (!name.endsWith(".json")) continue;
      try {
        const saved = JSON.parse(readFileSync(join(ownerDir, name), "utf8")) as { bytes?: unknown };
        total += typeof saved.bytes === "number" ? saved.bytes : treeBytes(join(ownerDir, name.slice(0, -".json".length)));
      } catch {
        // a record removed meanwhile
      }
    }
    return total;
  }

  /** The key's extension, or a 404 (unknown, deleted, or another key's). */
  get(owner: Owner, id: string, field = "extension"): StoredExtension {
    const notFound = () => new NotFoundError(`${field} ${clip(id)} not found`);
    if (!ID.test(id)) throw notFound();
    const dir = join(this.root, owner, id);
    let saved: { record: Extension; manifest: ExtensionManifest };
    try {
      saved = JSON.parse(readFileSync(`${dir}.json`, "utf8")) as typeof saved;
    } catch {
      throw notFound();
    }
    if (!existsSync(dir)) throw notFound();
    return { ...saved, dir };
  }

  /** Removes the key's extension (404 when it has none by that id). Running sessions keep their own copy. */
  delete(owner: Owner, id: string): void {
    const { dir } = this.get(owner, id);
    rmSync(`${dir}.json`, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }

  /**
   * A copy of the extension for one session (`<key>/.run-<session id>/`): Chrome reads an unpacked
   * extension's files while it runs, so a delete must not pull them away, and under isolation the copy
   * starts as a stub (see extensionsFeature). Removed when the session ends.
   */
  sessionCopy(ext: StoredExtension, owner: Owner, sessionId: string): string {
    const dir = join(this.root, owner, `.run-${sessionId}`);
    cpSync(ext.dir, dir, { recursive: true, errorOnExist: true, force: false });
    // Chrome reports (and names) an unpacked extension by its real path, symlinks resolved.
    return realpathSync(dir);
  }

  /** Half-written uploads, session copies of a server that stopped abruptly, and folders whose record is gone. */
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
        const stale = name.startsWith(".tmp-") || name.startsWith(".run-") || (ID.test(name) && !names.includes(`${name}.json`));
        if (stale) rmSync(join(ownerDir, name), { recursive: true, force: true });
      }
    }
  }
}

/** Bytes of the regular files under `dir` (0 when it is gone). */
function treeBytes(dir: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  } catch {
    // gone meanwhile
  }
  return total;
}

/** The session's `extensionId` (top level, as the SDK and Stagehand 4.x send it, or in browserSettings). */
function requestedExtension(params: Record<string, unknown>): { id: string; field: string } | undefined {
  const top = params.extensionId;
  const nested = (params.browserSettings as Record<string, unknown> | undefined)?.extensionId;
  if (top !== undefined) return { id: String(top), field: "extensionId" };
  if (nested !== undefined) return { id: String(nested), field: "browserSettings.extensionId" };
  return undefined;
}

/**
 * The manifest Chrome first loads under isolation: the real one's permissions and content-script matches
 * (so the real one, loaded next, asks for nothing more and stays enabled) without any code: no background
 * worker, no page overrides, content scripts replaced by an empty file.
 */
function stubManifest(manifest: ExtensionManifest, marker: string, emptyScript: string): ExtensionManifest {
  const { background: _b, chrome_url_overrides: _o, content_scripts: scripts, ...rest } = manifest;
  const stub: ExtensionManifest = { ...rest, description: marker };
  if (Array.isArray(scripts)) {
    stub.content_scripts = scripts.map((cs: Record<string, unknown>) => ({ matches: cs.matches, ...(cs.exclude_matches ? { exclude_matches: cs.exclude_matches } : {}), js: [emptyScript] }));
  }
  return stub;
}

/**
 * Starts a session's Chrome with its `extensionId` loaded (an unknown id is a 404 before Chrome starts), from a copy
 * of its own. Under isolation its code never runs with file:// access (browser/extension-access.ts).
 * `chromeIds(session)` are the ids Chrome gave, whose targets the CDP filter lets the tenant drive.
 */
export class ExtensionsFeature implements SessionFeature {
  readonly name = "extensions";
  private readonly loaded = new Map<string, readonly string[]>();

  constructor(private readonly store: ExtensionStore) {}

  chromeIds(sessionId: string): readonly string[] {
    return this.loaded.get(sessionId) ?? [];
  }

  prepare(start: SessionStart): FeatureRun | undefined {
    const wanted = requestedExtension(start.params as Record<string, unknown>);
    if (!wanted) return undefined;
    const ext = this.store.get(start.owner, wanted.id, wanted.field);
    const dir = this.store.sessionCopy(ext, start.owner, start.id);
    const ended = () => {
      this.loaded.delete(start.id);
      rmSync(dir, { recursive: true, force: true });
    };
    const failed = (e: unknown) => new ServiceInvalidArgumentError(`${wanted.field}: Chrome could not load extension ${ext.record.id}: ${e instanceof Error ? clip(e.message) : "failed"}`);
    if (!start.isolated) {
      return {
        args: [`--load-extension=${dir}`],
        started: async (_session, browser) => {
          const { id } = await loadedExtension(browser.wsEndpoint, dir).catch((e: unknown) => Promise.reject(failed(e)));
          this.loaded.set(start.id, [id]);
        },
        ended,
      };
    }
    const manifestPath = join(dir, "manifest.json");
    const real = readFileSync(manifestPath);
    const marker = `svc: loading (${randomUUID()})`;
    const emptyScript = `svc-stub-${randomUUID()}.js`;
    try {
      writeFileSync(join(dir, emptyScript), "", { mode: 0o600 });
      writeFileSync(manifestPath, JSON.stringify(stubManifest(ext.manifest, marker, emptyScript)), { mode: 0o600 });
    } catch (e) {
      ended();
      throw e;
    }
    return {
      args: [`--load-extension=${dir}`],
      started: async (_session, browser) => {
        try {
          const { id } = await loadWithoutFileAccess(browser.wsEndpoint, dir, marker, () => writeFileAtomic(manifestPath, real, 0o600));
          this.loaded.set(start.id, [id]);
        } catch (e) {
          throw failed(e);
        }
      },
      ended,
    };
  }
}
