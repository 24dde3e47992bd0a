/**
 * `svc snapshot [-i] [--max-tokens N] [-s SEL]`: the page's outline with refs, the same snapshot `svc extract`
 * prints (no instruction), numbered by the session's ref store so the verbs (`svc click e3`) resolve them.
 * `-i` keeps only lines with a ref (plus headings); `--max-tokens` fits the outline into a budget without
 * dropping a ref line. `--json`: `{snapshot, refs: {e1: {role, name}}, tokens}`.
 */
import { ServiceInvalidArgumentError } from "../src/errors.js";
import type { Page } from "../src/index.js";
import { PageSnapshots } from "../src/operations/snapshots.js";
import { sessionRefStore } from "../src/store/refs.js";
import { isCloud, type StoredSession } from "../src/store/sessions.js";
import type { GlobalOptions } from "./output.js";
import { stateRoot, withSession } from "./runtime.js";

export interface SnapshotFlags {
  interactive?: boolean;
  maxTokens?: string;
  selector?: string;
}

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

export async function snapshot(g: GlobalOptions, flags: SnapshotFlags): Promise<void> {
  const maxTokens = parseMaxTokens(flags.maxTokens);
  if (flags.selector !== undefined && !flags.selector.trim()) throw new ServiceInvalidArgumentError("--selector is empty");
  await withSession(g, async ({ svc, out, session, note }) => {
    const page: Page = svc.page;
    const options = { ...(flags.interactive ? { interactiveOnly: true } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}), ...(flags.selector ? { selector: flags.selector } : {}) };
    const snap = await sessionSnapshots(session).take(page, options);
    const refs: Record<string, { role: string; name: string }> = {};
    for (const t of snap.refs) refs[t.ref] = { role: t.role, name: t.name };
    note({ method: "snapshot", parameters: options, result: { url: page.url(), refs: snap.refs.size, tokens: snap.tokens } });
    out.result({ session: session?.id, url: page.url(), snapshot: snap.text, refs, tokens: snap.tokens }, () => snap.text);
  });
}
