/**
 * The downloads one API key keeps across its sessions, running and ended (downloadsMaxBytesPerKey). A session's
 * recorder asks `admit` before its downloads grow; past the total, the key's oldest ended sessions' downloads go
 * first (their zip then 410), and if that is not enough the download is refused and logged. A running session counts
 * what it was last admitted; an ended one is measured on disk.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Owner } from "../tenant.js";
import { removeDownloadsDir } from "./recorder-downloads.js";

interface Held {
  owner: Owner;
  dir: string;
  bytes: number;
  endedAt?: number;
  /** Deleted to make room for the key's newer downloads. */
  dropped?: boolean;
}

export class DownloadQuota {
  private readonly sessions = new Map<string, Held>();

  constructor(
    private readonly maxBytesPerKey: number,
    private readonly log: (line: string) => void,
  ) {}

  open(id: string, owner: Owner, dir: string): void {
    this.sessions.set(id, { owner, dir, bytes: 0 });
  }

  /** Undefined when session `id` may hold `bytes` of downloads in all (it is then counted so); else why not. */
  admit(id: string, bytes: number): string | undefined {
    const me = this.sessions.get(id);
    if (!me) return undefined;
    const mine = () => [...this.sessions.values()].filter((s) => s.owner === me.owner && s !== me);
    const others = () => mine().reduce((t, s) => t + s.bytes, 0);
    if (others() + bytes > this.maxBytesPerKey) {
      const ended = mine()
        .filter((s) => s.endedAt !== undefined && !s.dropped && s.bytes > 0)
        .sort((a, b) => a.endedAt! - b.endedAt!);
      for (const s of ended) {
        if (others() + bytes <= this.maxBytesPerKey) break;
        removeDownloadsDir(s.dir);
        this.log(`downloads: key ${me.owner} passed its ${this.maxBytesPerKey} bytes; the ${s.bytes} bytes of an ended session's downloads were deleted to make room`);
        s.bytes = 0;
        s.dropped = true;
      }
    }
    const total = others() + bytes;
    if (total > this.maxBytesPerKey) {
      this.log(`downloads: session ${id} of key ${me.owner}: a download was refused (the key's downloads would hold ${total} bytes, over its ${this.maxBytesPerKey})`);
      return `the API key's downloads would pass ${this.maxBytesPerKey} bytes (--downloads-max-key)`;
    }
    me.bytes = bytes;
    return undefined;
  }

  /** The session ended: from now on it counts what its folder holds, and may be deleted to make room. */
  ended(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    s.endedAt = Date.now();
    s.bytes = folderBytes(s.dir);
  }

  /** Whether the session's downloads were deleted to make room for the key's newer ones. */
  dropped(id: string): boolean {
    return this.sessions.get(id)?.dropped === true;
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }
}

function folderBytes(dir: string): number {
  let total = 0;
  try {
    for (const name of readdirSync(dir)) {
      try {
        const st = statSync(join(dir, name));
        if (st.isFile()) total += st.size;
      } catch {
        // removed meanwhile
      }
    }
  } catch {
    // no folder: nothing kept
  }
  return total;
}
