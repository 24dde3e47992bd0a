/**
 * Downloads kept in a folder of the caller's choice, with a record of each beside them (`.svc-downloads/<guid>.json`)
 * so a later process can list them. Chrome resets `setDownloadBehavior` on every client's detach, so a launched
 * Chrome gets the folder as its `download.default_directory` preference (launch.ts) and svc's clients ask only for
 * the events.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { CdpSession } from "./cdp/connection.js";

export type DownloadState = "inProgress" | "completed" | "canceled";

/** One download, as recorded or as found in the folder. */
export interface Download {
  /** The file's name in the folder (for a download in progress: the name the page suggested). */
  name: string;
  /** Where the file is (or will be). */
  path: string;
  /** Bytes on disk (received so far while in progress). */
  size: number;
  state: DownloadState;
  /** Where it came from (undefined for a file svc did not see being downloaded). */
  url?: string;
  startedAt?: string;
  finishedAt?: string;
}

interface DownloadRecord {
  guid: string;
  url?: string;
  suggestedFilename?: string;
  state: DownloadState;
  filePath?: string;
  receivedBytes?: number;
  startedAt?: string;
  finishedAt?: string;
}

const RECORDS = ".svc-downloads";

function recordsDir(dir: string): string {
  return join(dir, RECORDS);
}

/** Chrome's names for files it is still writing. */
const PARTIAL = /\.crdownload$/;

function readRecord(path: string): DownloadRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as Partial<DownloadRecord>;
    return typeof r.guid === "string" && typeof r.state === "string" ? (r as DownloadRecord) : undefined;
  } catch {
    return undefined;
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/** `report.txt (11 B)` sizes for people and models. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** One line for the agent and logs: `downloaded report.txt (11 B) to /dir/report.txt`. */
export function describeDownload(d: Download): string {
  if (d.state === "canceled") return `the download of ${d.name}${d.url ? ` from ${d.url}` : ""} was canceled`;
  return `downloaded ${d.name} (${formatSize(d.size)}) to ${d.path}`;
}

function toDownload(dir: string, r: DownloadRecord): Download {
  const path = r.filePath ?? join(dir, r.suggestedFilename ?? r.guid);
  const size = r.state === "completed" ? (sizeOf(path) ?? r.receivedBytes ?? 0) : (r.receivedBytes ?? 0);
  return {
    name: basename(path),
    path,
    size,
    state: r.state,
    ...(r.url !== undefined ? { url: r.url } : {}),
    ...(r.startedAt !== undefined ? { startedAt: r.startedAt } : {}),
    ...(r.finishedAt !== undefined ? { finishedAt: r.finishedAt } : {}),
  };
}

/**
 * The downloads of a folder, oldest first: every recorded one, plus files svc did not see arrive (no URL;
 * Chrome's partial `.crdownload` files are in progress). A missing folder has none.
 */
export function listDownloads(dir: string): Download[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  let recordNames: string[] = [];
  try {
    recordNames = readdirSync(recordsDir(dir)).filter((n) => n.endsWith(".json"));
  } catch {
    // no records yet
  }
  const recorded = recordNames.map((n) => readRecord(join(recordsDir(dir), n))).filter((r): r is DownloadRecord => r !== undefined);
  const out = recorded.map((r) => toDownload(dir, r));
  const known = new Set(out.map((d) => d.path));
  for (const name of names) {
    const path = join(dir, name);
    if (name === RECORDS || known.has(path) || name.startsWith(".")) continue;
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const partial = PARTIAL.test(name);
    // A partial file of a recorded download in progress is that download, not another one.
    if (partial && out.some((d) => d.state === "inProgress")) continue;
    out.push({ name, path, size: st.size, state: partial ? "inProgress" : "completed", startedAt: st.birthtime.toISOString() });
  }
  return out.sort((a, b) => (a.startedAt ?? "").localeCompare(b.startedAt ?? ""));
}

/** Removes a download folder that holds no download (only svc's empty records dir), so ended sessions leave no litter. */
export function pruneEmptyDownloads(dir: string): void {
  if (listDownloads(dir).length) return;
  try {
    let records: string[] = [];
    try {
      records = readdirSync(recordsDir(dir));
    } catch {
      // no records dir (no watcher ran)
    }
    if (records.length) return;
    rmSync(recordsDir(dir), { recursive: true, force: true });
    rmdirSync(dir);
  } catch {
    // not empty, or gone already
  }
}

const FINAL: ReadonlySet<DownloadState> = new Set(["completed", "canceled"]);

/**
 * Records the downloads of one browser connection into `dir` and tells listeners of each finished one.
 * Call `start()` once per connection (the browser-level session).
 */
export class DownloadWatcher {
  private readonly listeners = new Set<(d: Download) => void>();

  private constructor(readonly dir: string) {}

  static async start(root: CdpSession, dir: string): Promise<DownloadWatcher> {
    mkdirSync(recordsDir(dir), { recursive: true, mode: 0o700 });
    const w = new DownloadWatcher(dir);
    root.on("Browser.downloadWillBegin", (e) => {
      w.update({ guid: e.guid, url: e.url, suggestedFilename: e.suggestedFilename, state: "inProgress", startedAt: new Date().toISOString() });
    });
    root.on("Browser.downloadProgress", (e) => {
      if (e.state === "inProgress") return;
      const finished = w.update({ guid: e.guid, state: e.state, receivedBytes: e.receivedBytes, finishedAt: new Date().toISOString(), ...(e.filePath ? { filePath: e.filePath } : {}) });
      if (finished) w.tell(toDownload(dir, finished));
    });
    // "default": files go where the profile's preference says (launch.ts), and stay there after this client
    // detaches; only the events are asked for.
    await root.send("Browser.setDownloadBehavior", { behavior: "default", eventsEnabled: true });
    return w;
  }

  /** Each finished (completed or canceled) download seen by this connection. */
  onDownload(listener: (d: Download) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private tell(d: Download): void {
    for (const l of [...this.listeners]) {
      try {
        l(d);
      } catch {
        // one listener's failure must not keep the others from hearing of the download
      }
    }
  }

  /** Merges `patch` into the download's record; returns the record written (undefined: not written). */
  private update(patch: DownloadRecord): DownloadRecord | undefined {
    const path = join(recordsDir(this.dir), `${patch.guid.replace(/[^\w-]/g, "_")}.json`);
    const old = readRecord(path);
    if (old && FINAL.has(old.state) && !FINAL.has(patch.state)) return undefined;
    const merged: DownloadRecord = { ...old, ...patch, ...(old?.startedAt ? { startedAt: old.startedAt } : {}) };
    try {
      writeFileAtomic(path, `${JSON.stringify(merged)}\n`);
    } catch {
      // the folder went away (the session ended): the download itself is Chrome's business
      return merged;
    }
    return merged;
  }
}
