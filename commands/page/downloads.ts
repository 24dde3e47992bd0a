/**
 * `svc downloads`: what the session's pages downloaded — from its download folder and the records beside the
 * files (src/browser/downloads.ts), so a download that finished after the command that started it exited
 * is listed too (the session's host saw it finish). With no live session: the one-shot folder.
 */
import { resolve } from "node:path";
import { ServiceInvalidArgumentError, ServiceSessionNotFoundError } from "../../src/base.js";
import { formatSize, listDownloads } from "../../src/internal.js";
import { defaultDownloadsDir, isCloud, type StoredSession } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { table } from "../core/output.js";
import { output, resolveSession, stateRoot } from "../core/runtime.js";

const STATE_WORDS = { completed: "completed", inProgress: "in progress", canceled: "canceled" } as const;

async function folder(g: GlobalOptions, root: string): Promise<{ dir: string; session?: StoredSession }> {
  if (g.downloads !== undefined) return { dir: resolve(g.downloads) };
  let session: StoredSession;
  try {
    session = await resolveSession(root, g.session);
  } catch (e) {
    // No live session: a one-shot browser's downloads (an explicit --session must exist).
    if (e instanceof ServiceSessionNotFoundError && g.session === undefined) return { dir: defaultDownloadsDir(root, undefined) };
    throw e;
  }
  if (isCloud(session)) throw new ServiceInvalidArgumentError(`session ${session.id} runs on the cloud platform: its downloads stay there`);
  return { dir: session.downloadsDir ?? defaultDownloadsDir(root, session.id), session };
}

export async function downloads(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const { dir, session } = await folder(g, root);
  const list = listDownloads(dir);
  out.result({ folder: dir, ...(session ? { session: session.id } : {}), downloads: list }, () =>
    list.length
      ? [
          ...table([
            ["NAME", "SIZE", "STATE", "WHEN", "URL"],
            ...list.map((d) => [d.name, formatSize(d.size), STATE_WORDS[d.state], d.finishedAt ?? d.startedAt ?? "", d.url ?? "-"]),
          ]),
          `folder: ${dir}`,
        ]
      : `no downloads in ${dir}`,
  );
}
