/**
 * `svc snapshot [URL] [-i] [--max-tokens N] [-s SEL] [--delta] [--from eN]`: the page's outline with refs numbered by
 * the session's ref store, so the verbs (`svc click e3`) resolve them. `--delta` compares with the tab's last outline
 * (store/outlines.ts); `--max-tokens` cuts the tail, ref lines too, and says so. Formats: docs/cli.md.
 */
import type { Page } from "../../src/index.js";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { PageSnapshots } from "../../src/internal.js";
import { isCloud, sessionRefStore, type StoredSession } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import type { CloudGlobals } from "../core/cloud.js";
import { type RunContext, checkUrl, stateRoot, withLiveOrOneShot, withSession } from "../core/runtime.js";
import type { SNAPSHOT_OPTIONS } from "../registry/page.js";
import type { FlagsOf } from "../registry/types.js";

export type SnapshotFlags = FlagsOf<typeof SNAPSHOT_OPTIONS>;

/**
 * The session's page snapshots, numbered through its ref store (the one the library uses for act and
 * extract): refs printed here are the refs `svc act` and the verbs resolve.
 */
export function sessionSnapshots(session: StoredSession | undefined): PageSnapshots {
  if (!session || isCloud(session)) {
    throw new ServiceInvalidArgumentError("refs need a local session", { hint: "start one with `svc sessions start`; on a cloud session use a selector" });
  }
  return new PageSnapshots(sessionRefStore(session.id, stateRoot()));
}

function parseMaxTokens(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!raw.trim() || !Number.isInteger(n) || n <= 0) throw new ServiceInvalidArgumentError(`--max-tokens must be a positive whole number, got "${raw}"`);
  return n;
}

export async function snapshot(g: CloudGlobals, flags: SnapshotFlags, rawUrl?: string): Promise<void> {
  const maxTokens = parseMaxTokens(flags.maxTokens);
  if (flags.selector !== undefined && !flags.selector.trim()) throw new ServiceInvalidArgumentError("--selector is empty");
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  if (url === undefined && flags.new) throw new ServiceInvalidArgumentError("--new applies to snapshot URL", { hint: "svc snapshot https://example.com --new" });
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page: Page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const options = {
      ...(flags.interactive ? { interactiveOnly: true } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(flags.selector ? { selector: flags.selector } : {}),
      ...(flags.delta ? { delta: true } : {}),
      ...(flags.from !== undefined ? { from: flags.from } : {}),
    };
    // A browser for this command only has no session to keep refs in: they number this one outline.
    const snapshots = session || url === undefined ? sessionSnapshots(session) : new PageSnapshots();
    const snap = await snapshots.take(page, { ...options, shown: true });
    const shown = new Set(snap.shown);
    const refs: Record<string, { role: string; name: string; derived?: true }> = {};
    for (const t of snap.refs) if (shown.has(t.ref)) refs[t.ref] = { role: t.role, name: t.name, ...(t.derived ? { derived: true as const } : {}) };
    note({ method: "snapshot", parameters: options, result: { url: page.url(), refs: snap.refs.size, tokens: snap.tokens } });
    out.result({ session: session?.id, url: page.url(), snapshot: snap.text, refs, tokens: snap.tokens }, () => snap.text);
  };
  if (url !== undefined) await withLiveOrOneShot(g, flags, run);
  else await withSession(g, run);
}
