/**
 * Saved contexts (saved logins), per API key: the browser's cookies and the profile files holding web storage, as one
 * zip sealed with AES-256-GCM (util/seal.ts) under the server's data key, its associated data naming key fingerprint
 * and id so a blob copied elsewhere does not open. Stored by contexts-store.ts, in files or the cluster's Redis.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import type { BrowserCookie } from "../../internal.js";
import { gcmOpenBytes, gcmSealBytes } from "../../util/seal.js";
import { clip } from "../../util/zod.js";
import { dataDirOf, type ServerConfig } from "../config.js";
import { type ContextBlobs, FileContextBlobs, RedisContextBlobs } from "./contexts-store.js";
import { resolveDataKey } from "../isolation/data-key.js";
import { ConflictError, InternalFailureError, NotFoundError } from "../failures.js";

export interface ContextMeta {
  id: string;
  projectId: string;
  name?: string | undefined;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

export interface ContextContents {
  cookies: BrowserCookie[];
  /** Profile files by their path inside the profile directory ("/" separators). */
  files: Record<string, Uint8Array>;
}

/**
 * Largest contents a context keeps, in bytes (cookies' JSON plus profile files, before compression): a
 * handful of sites' logins and storage fit (Chrome allows ~10 MB of localStorage per origin), and every
 * session start holds one whole context in memory, as does Redis in a cluster. Past it, a save is skipped.
 */
export const MAX_CONTEXT_BYTES = 32 * 1024 * 1024;

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class ContextTooLargeError extends Error {}

export class Contexts {
  private resolved: Buffer | undefined;

  /** `key`: the data key, or how to get it the first time it is needed (a lone server's data.key file). */
  constructor(
    private readonly blobs: ContextBlobs,
    private readonly dataKey: Buffer | (() => Buffer),
  ) {}

  private get key(): Buffer {
    if (this.resolved) return this.resolved;
    if (Buffer.isBuffer(this.dataKey)) return (this.resolved = this.dataKey);
    try {
      return (this.resolved = this.dataKey());
    } catch (e) {
      throw new InternalFailureError(`the server's data key is unusable: ${e instanceof Error ? e.message : String(e)}`, { code: "DATA_KEY_UNUSABLE" });
    }
  }

  private aad(owner: string, id: string): string {
    return `svc-context v1 ${owner} ${id}`;
  }

  private seal(owner: string, meta: ContextMeta, contents: ContextContents): Buffer {
    const files: Zippable = { "context.json": strToU8(JSON.stringify(meta)), "cookies.json": strToU8(JSON.stringify(contents.cookies)) };
    for (const [path, data] of Object.entries(contents.files)) files[`profile/${path}`] = data;
    return gcmSealBytes(this.key, zipSync(files, { level: 6 }), this.aad(owner, meta.id));
  }

  private async open(owner: string, id: string, withContents: boolean): Promise<{ meta: ContextMeta; contents: ContextContents } | undefined> {
    // Ids are ours (UUIDs): anything else is unknown, and never reaches a file path or a Redis key.
    if (!ID.test(id)) return undefined;
    const blob = await this.blobs.read(owner, id);
    if (!blob) return undefined;
    let zip: Record<string, Uint8Array>;
    try {
      const plain = gcmOpenBytes(this.key, blob, this.aad(owner, id));
      zip = unzipSync(plain, withContents ? {} : { filter: (f) => f.name === "context.json" });
    } catch {
      throw new InternalFailureError(`context ${id} cannot be opened with this server's data key (a different --data-key, or the data was altered)`, { code: "CONTEXT_UNREADABLE" });
    }
    const meta = JSON.parse(strFromU8(zip["context.json"] ?? strToU8("{}"))) as ContextMeta;
    const files: Record<string, Uint8Array> = {};
    for (const [name, data] of Object.entries(zip)) if (name.startsWith("profile/") && !name.endsWith("/")) files[name.slice("profile/".length)] = data;
    const cookies = withContents ? (JSON.parse(strFromU8(zip["cookies.json"] ?? strToU8("[]"))) as BrowserCookie[]) : [];
    return { meta, contents: { cookies, files } };
  }

  private notFound(id: string): NotFoundError {
    return new NotFoundError(`context ${clip(id)} not found`);
  }

  async create(owner: string, p: { projectId?: string | undefined; name?: string | undefined }): Promise<ContextMeta> {
    const now = Date.now();
    const meta: ContextMeta = { id: randomUUID(), projectId: p.projectId ?? owner, ...(p.name ? { name: p.name } : {}), createdAt: now, updatedAt: now };
    await this.blobs.write(owner, meta.id, this.seal(owner, meta, { cookies: [], files: {} }));
    return meta;
  }

  /** The context's metadata; 404 when unknown or another key's. */
  async get(owner: string, id: string): Promise<ContextMeta> {
    const found = await this.open(owner, id, false);
    if (!found) throw this.notFound(id);
    return found.meta;
  }

  async load(owner: string, id: string): Promise<{ meta: ContextMeta; contents: ContextContents }> {
    const found = await this.open(owner, id, true);
    if (!found) throw this.notFound(id);
    return found;
  }

  /** Replaces the contents (the context must still exist: a deleted one is not brought back). */
  async save(owner: string, id: string, contents: ContextContents): Promise<void> {
    const size = Buffer.byteLength(JSON.stringify(contents.cookies)) + Object.values(contents.files).reduce((n, f) => n + f.byteLength, 0);
    if (size > MAX_CONTEXT_BYTES) throw new ContextTooLargeError(`its contents are ${(size / 2 ** 20).toFixed(1)} MiB, over the ${MAX_CONTEXT_BYTES / 2 ** 20} MiB bound`);
    const meta = await this.get(owner, id);
    await this.blobs.write(owner, id, this.seal(owner, { ...meta, updatedAt: Date.now() }, contents));
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!ID.test(id) || !(await this.blobs.remove(owner, id))) throw this.notFound(id);
  }

  /** Takes the context for a persisting session: 409 CONTEXT_IN_USE while another one holds it. */
  async lock(owner: string, id: string, ttlMs: number): Promise<() => Promise<void>> {
    const token = await this.blobs.lock(owner, id, ttlMs);
    if (!token) throw new ConflictError(`context ${id} is in use by another session that persists it; start this one with persist: false, or after that one ends`, { code: "CONTEXT_IN_USE" });
    return () => this.blobs.unlock(owner, id, token);
  }

  close(): Promise<void> {
    return this.blobs.close();
  }
}

/** The server's contexts: in the cluster's Redis when there is one, else under `<dataDir>/contexts/`. */
export async function openContexts(config: ServerConfig, log: (line: string) => void): Promise<Contexts> {
  if (!config.cluster) {
    // A data dir chosen (svc serve always passes one): its key is checked at startup. Otherwise (the library's
    // startServer next to a temp cache dir) nothing is written until the first context needs the key.
    const key = config.dataDir !== undefined || config.dataKey !== undefined ? resolveDataKey(config, log) : () => resolveDataKey(config, log);
    return new Contexts(new FileContextBlobs(join(dataDirOf(config), "contexts")), key);
  }
  const key = resolveDataKey(config, log);
  const blobs = new RedisContextBlobs(config.cluster.store, config.cluster.prefix);
  try {
    await blobs.connect();
  } catch (e) {
    await blobs.close();
    throw e;
  }
  return new Contexts(blobs, key);
}
