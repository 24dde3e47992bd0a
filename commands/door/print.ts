/**
 * A capability's outcome on stdout: a line for a person, or with `--json` its data. A report that is a failure to a
 * person (an HTTP 404) fails the command unless `--json`; one with a file or an image goes to the verb's output file.
 */
import { type Outcome, outcomeText } from "../../src/capabilities/index.js";
import { isCloud, sessionTabStore, type StoredSession } from "../../src/base.js";
import type { Service } from "../../src/index.js";
import type { CloudGlobals } from "../core/cloud.js";
import { writeOutputFile } from "../core/output-file.js";
import { type Output, table } from "../core/output.js";
import { stateRoot } from "../core/runtime.js";
import { rememberTabs } from "../core/tabs.js";

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

export interface OpenedTab {
  id: number;
  url: string;
  selected: boolean;
}

export function print(g: CloudGlobals, out: Output, o: Outcome, extra: { head?: Record<string, unknown>; path?: string | undefined; opened?: OpenedTab | undefined } = {}): void {
  if (o.kind === "report" && o.failure && !g.json) throw o.failure;
  const { head = {}, path, opened } = extra;
  if (path !== undefined && o.kind === "report" && o.file) {
    writeOutputFile(path, o.file.bytes);
    const { [o.file.replaces]: _written, ...meta } = o.data;
    out.result({ ...head, ...meta, path, bytes: o.file.bytes.length }, () => path);
    return;
  }
  if (path !== undefined && o.kind === "report" && o.image) writeOutputFile(path, o.image.data);
  out.result({ ...head, ...json(o), ...(opened ? { openedTab: opened } : {}) }, () =>
    o.kind === "tabs" ? table(o.tabs.map((t) => [t.selected ? "*" : " ", String(t.id), t.url, t.title])) : `${line(o)}${opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : ""}`,
  );
}

function json(o: Outcome): Record<string, unknown> {
  // An act an instruction chose names its model (`none`: a literal one), as `svc act` always has.
  if (o.kind === "act") return { ...(o.chosen?.model !== undefined ? { model: o.chosen.model } : {}), result: o.result };
  if (o.kind === "report") return o.data;
  if (o.kind === "tabs") return { selected: o.selected, tabs: o.tabs };
  const { kind: _kind, ...rest } = o;
  return rest;
}

/** `https://x/  Title` plus `  (HTTP 404)` when the server answered an error status. */
function pageLine(url: string, title: string, status: number | null): string {
  return `${url}${title ? `  ${title}` : ""}${status !== null && status >= 400 ? `  (HTTP ${status})` : ""}`;
}

function line(o: Outcome): string {
  // The act's message is "<method> succeeded: <description>" plus what the page holds afterwards, if it says.
  if (o.kind === "act" && !o.chosen) return `done: ${o.result.message.replace(/^\w+ succeeded: /, "")}`;
  if (o.kind === "moved") return pageLine(o.url, o.title, null);
  if (o.kind === "navigated") return pageLine(o.url, o.title, o.status);
  return outcomeText(o);
}

/** A tab the verb opened, numbered as `svc tabs` numbers it (later commands drive it when it became the selected tab). */
export async function openedTab(svc: Service, before: ReadonlySet<string>, session: StoredSession | undefined, out: Output): Promise<OpenedTab | undefined> {
  const page = svc.context.pages().find((p) => !before.has(p.targetId));
  if (!page || !session || isCloud(session)) return undefined;
  const file = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out);
  const id = file?.ids[page.targetId];
  if (id === undefined) return undefined;
  // window.open(url) makes the tab before its document commits: name the URL it opened, not the empty one.
  return { id, url: await page.committedUrl(OPENED_URL_WAIT_MS), selected: svc.context.activePage() === page };
}
