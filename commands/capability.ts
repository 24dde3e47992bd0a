/**
 * Runs a capability's one handler (src/capabilities/) for its CLI verb on the live session, and prints its
 * outcome: a line for a person, the outcome as JSON with `--json`. A tab the action opened is named, numbered
 * as `svc tabs` numbers it, since later commands drive it when it became the selected tab.
 */
import { type Capability, type CapabilityContext, type CliVerb, cliFlags, cliInput, longFlag, type Noted, type Outcome, outcomeText } from "../src/capabilities/index.js";
import { isCloud, ServiceInvalidArgumentError, sessionTabStore, type StoredSession } from "../src/base.js";
import type { Page, Service } from "../src/index.js";
import { ActFailedError } from "./act.js";
import { commandSignal } from "./cleanup.js";
import type { CloudGlobals } from "./cloud.js";
import { pageLine } from "./goto.js";
import { elementOf } from "./inspect.js";
import { checkOutputPath, writeOutputFile } from "./output-file.js";
import type { Output } from "./output.js";
import { output, stateRoot, withOneShot, withSession } from "./runtime.js";
import { searchBackend } from "./search-backend.js";
import { rememberTabs } from "./tabs.js";
import { typedUrl } from "./url.js";

/** How long a verb waits for a tab it opened to commit its first document before naming it. */
const OPENED_URL_WAIT_MS = 5000;

export async function runCapability(g: CloudGlobals, v: CliVerb, positional: readonly string[], flags: Readonly<Record<string, unknown>>): Promise<void> {
  const c = v.capability;
  const input = cliInput(v, positional, flags);
  if (c.cli?.url && typeof input[c.cli.url] === "string") input[c.cli.url] = typedUrl(input[c.cli.url] as string);
  // An output file is checked before anything runs, so a bad path fails fast and nothing is half-done.
  const path = c.cli?.output && typeof input.output === "string" ? checkOutputPath(input.output) : undefined;
  if (c.needs === "none") return runWithoutBrowser(g, v, input, path);
  const timeout = typeof input.timeout === "number" ? input.timeout : undefined;
  await withSession(g, async ({ svc, out, session, note }) => {
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const outcome = await c.run(capabilityContext(svc, session, out, svc.page, { g, note }), input as never);
    if (outcome.kind === "act" && !outcome.result.success) throw new ActFailedError(`${v.verb} failed: ${outcome.result.message}`);
    // A history move is no act: the session's history records it as the page method it is.
    if (outcome.kind === "moved") note({ method: MOVE_METHOD[outcome.which], parameters: {}, result: { url: outcome.url, title: outcome.title } });
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    const opened = await openedTab(svc, before, session, out);
    print(g, out, outcome, { session: session?.id }, path, opened && { openedTab: opened }, opened ? ` (opened tab ${opened.id}: ${opened.url}${opened.selected ? "; now selected" : ""})` : "");
  }, timeout !== undefined ? { timeoutMs: timeout } : {});
}

/** A capability that needs no browser (search, a plain fetch): run here; one it asks for is the --session's, else a one-shot. */
async function runWithoutBrowser(g: CloudGlobals, v: CliVerb, input: Record<string, unknown>, path: string | undefined): Promise<void> {
  const c = v.capability;
  const needs = c.cli?.sessionWith;
  if (needs && g.session !== undefined && !input[needs]) {
    throw new ServiceInvalidArgumentError(`--session applies with ${flagOf(c, needs)} (a plain ${v.verb} uses no browser)`);
  }
  const out = output(g);
  const noBrowser = (): never => {
    throw new Error(`${v.verb} runs with no browser (needs: "none"): it asks for one with browse()`);
  };
  const ctx: CapabilityContext = {
    get svc(): Service {
      return noBrowser();
    },
    page: async () => noBrowser(),
    resolve: async () => noBrowser(),
    searchBackend: () => searchBackend(g, out),
    browse: (fn) => {
      const run = ({ svc, note }: { svc: Service; note: (e: Noted) => void }) => fn(svc.page, note);
      return g.session !== undefined ? withSession(g, run) : withOneShot(g, {}, run);
    },
    signal: commandSignal(),
  };
  print(g, out, await c.run(ctx, input as never), {}, path);
}

function flagOf(c: Capability, property: string): string {
  const f = cliFlags(c).find((x) => x.property === property);
  return f ? longFlag(f) : property;
}

/** The handler's view of the session: `--tab N` is the tab `svc tabs` numbers N (the selection stays), refs are the session's. */
export function capabilityContext(svc: Service, session: StoredSession | undefined, out: Output, selected: Page = svc.page, run?: { g: CloudGlobals; note: (e: Noted) => void }): CapabilityContext {
  return {
    svc,
    page: async (tab) => (tab === undefined ? selected : numberedTab(svc, session, out, tab)),
    resolve: (t, page) => elementOf(page ?? selected, session, t),
    searchBackend: () => searchBackend(run?.g ?? { json: out.json, verbose: out.verbose, session: session?.id }, out),
    browse: (fn) => fn(selected, run?.note ?? (() => {})),
    signal: commandSignal(),
  };
}

/**
 * The outcome on stdout: a line, or with --json its data (and `head` before it). A report that is a failure to a
 * person fails the command unless --json; one with a file goes to `-o FILE`, printed as its path.
 */
function print(g: CloudGlobals, out: Output, o: Outcome, head: Record<string, unknown>, path?: string, tail: Record<string, unknown> | undefined = {}, after = ""): void {
  if (o.kind === "report" && o.failure && !g.json) throw o.failure;
  if (o.kind === "report" && o.file && path !== undefined) {
    writeOutputFile(path, o.file.bytes);
    const { [o.file.replaces]: _written, ...meta } = o.data;
    out.result({ ...head, ...meta, path, bytes: o.file.bytes.length, ...tail }, () => path);
    return;
  }
  out.result({ ...head, ...json(o), ...tail }, () => `${line(o)}${after}`);
}

function numberedTab(svc: Service, session: StoredSession | undefined, out: Output, tab: number): Page {
  if (!session || isCloud(session)) throw new ServiceInvalidArgumentError("--tab: needs a local session (svc tabs numbers its tabs)");
  const ids = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out)?.ids ?? {};
  const targetId = Object.keys(ids).find((id) => ids[id] === tab);
  const page = svc.context.pages().find((p) => p.targetId === targetId);
  if (!page) throw new ServiceInvalidArgumentError(`--tab: no open tab ${tab} (svc tabs lists them)`);
  return page;
}

const MOVE_METHOD = { back: "goBack", forward: "goForward", reload: "reload" } as const;

function json(o: Outcome): Record<string, unknown> {
  if (o.kind === "act") return { result: o.result };
  if (o.kind === "report") return o.data;
  const { kind: _kind, ...rest } = o;
  return rest;
}

function line(o: Outcome): string {
  // The act's message is "<method> succeeded: <description>" plus what the page holds afterwards, if it says.
  if (o.kind === "act") return `done: ${o.result.message.replace(/^\w+ succeeded: /, "")}`;
  return o.kind === "moved" ? pageLine(o.url, o.title, null) : outcomeText(o);
}

async function openedTab(svc: Service, before: ReadonlySet<string>, session: StoredSession | undefined, out: Output): Promise<{ id: number; url: string; selected: boolean } | undefined> {
  const page = svc.context.pages().find((p) => !before.has(p.targetId));
  if (!page || !session || isCloud(session)) return undefined;
  const file = rememberTabs(svc, sessionTabStore(session.id, stateRoot()), out);
  const id = file?.ids[page.targetId];
  if (id === undefined) return undefined;
  // window.open(url) makes the tab before its document commits: name the URL it opened, not the empty one.
  return { id, url: await page.committedUrl(OPENED_URL_WAIT_MS), selected: svc.context.activePage() === page };
}
