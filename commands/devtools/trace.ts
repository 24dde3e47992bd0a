/**
 * `svc trace start|stop FILE`: a Chrome trace of the session, held by its host (browser/trace.ts) through control
 * requests, so a full `svc` process reaches the same trace. The stop writes FILE and prints a summary from it
 * (browser/trace-summary.ts).
 */
import { ServiceInvalidArgumentError, isCloud, sessionTabStore, touchSession } from "../../src/base.js";
import { askSessionHost } from "../host/ask.js";
import { DEFAULT_TRACE_CATEGORIES, SCREENSHOT_CATEGORY, TRACE_MAX_SIZE_MB, type TraceSummary, type TraceWritten, boundWords, checkTraceMaxSize, summaryLines, summarizeTraceFile } from "../../src/internal.js";
import { checkOutputPath } from "../core/output-file.js";
import type { GlobalOptions } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";
import { resolveSession } from "../core/session-lookup.js";

/** The longest a stop may take: Chrome hands the buffer over and the host writes it. */
const STOP_TIMEOUT_MS = 180_000;

/** `--categories a,b,-c`: checked, at most 100, each a category name or a pattern with `*`. */
export function parseCategories(raw: string | undefined, screenshots: boolean): string[] {
  let categories: string[] = [...DEFAULT_TRACE_CATEGORIES];
  if (raw !== undefined) {
    categories = raw.split(",").map((c) => c.trim()).filter(Boolean);
    if (!categories.length || categories.length > 100) throw new ServiceInvalidArgumentError("invalid --categories: expected 1 to 100 comma-separated category names");
    const wrong = categories.find((c) => !/^-?[A-Za-z0-9_.*:-]{1,200}$/.test(c));
    if (wrong !== undefined) throw new ServiceInvalidArgumentError(`invalid --categories: ${JSON.stringify(wrong.slice(0, 60))} is not a category name`);
  }
  if (screenshots && !categories.includes(SCREENSHOT_CATEGORY)) categories.push(SCREENSHOT_CATEGORY);
  return categories;
}

async function hostOf(g: GlobalOptions): Promise<{ root: string; id: string }> {
  const root = stateRoot();
  const session = touchSession(await resolveSession(root, g.session), root);
  if (isCloud(session)) throw new ServiceInvalidArgumentError("svc trace records a local session; a cloud session's browser is the platform's", { hint: "svc sessions start (local), or --session ID" });
  return { root, id: session.id };
}

/** `--max-size MB`: a whole number in range (the library's one check), else the default. */
function parseMaxSize(raw: string | undefined): number {
  if (raw === undefined) return TRACE_MAX_SIZE_MB.default;
  return checkTraceMaxSize(/^\d{1,6}$/.test(raw.trim()) ? Number(raw.trim()) : raw, "--max-size");
}

export async function traceStart(g: GlobalOptions, flags: { screenshots?: boolean; categories?: string; maxSize?: string }): Promise<void> {
  const out = output(g);
  const categories = parseCategories(flags.categories, !!flags.screenshots);
  const maxSizeMb = parseMaxSize(flags.maxSize);
  const { root, id } = await hostOf(g);
  // Screenshots are the selected tab's (the one later commands drive).
  const screenshotsOf = flags.screenshots ? { target: sessionTabStore(id, root).load().selected } : undefined;
  await askSessionHost(root, id, { control: "trace-start", categories, maxSizeMb, ...(screenshotsOf ? { screenshotsOf } : {}) });
  out.result({ session: id, tracing: true, categories, maxSizeMb }, () => [`tracing session ${id} (${categories.filter((c) => !c.startsWith("-")).length} categories, at most ${maxSizeMb} MB); svc trace stop FILE writes it`]);
}

export async function traceStop(g: GlobalOptions, file: string): Promise<void> {
  const out = output(g);
  const path = checkOutputPath(file);
  const { root, id } = await hostOf(g);
  const written = await askSessionHost<TraceWritten>(root, id, { control: "trace-stop", path }, STOP_TIMEOUT_MS);
  let summary: TraceSummary | undefined;
  let why: string | undefined;
  try {
    summary = await summarizeTraceFile(path);
  } catch (e) {
    why = `the trace could not be read: ${(e as Error).message}`;
  }
  const bound = boundWords(written);
  const head = `wrote ${file} (${written.bytes} bytes${written.dataLoss ? "; Chrome's buffer filled: the later events are missing" : ""}${bound ? `; ${bound}` : ""})`;
  const { bytes, dataLoss, maxBytes, boundHit, droppedEvents, droppedBytes, startedAt } = written;
  out.result({ session: id, file: path, bytes, dataLoss, maxBytes, boundHit, droppedEvents, droppedBytes, startedAt, summary: summary ?? null, ...(why ? { summaryError: why } : {}) }, () => [head, ...(summary ? summaryLines(summary) : [`no summary: ${why}`])]);
}
