/**
 * How a capability is declared once for every door: a zod input whose properties carry their descriptions,
 * the doors that offer it (a CLI verb, an MCP tool) and one handler over the library. The CLI's registry
 * (commands/registry/capabilities.ts) and the MCP server (src/mcp/capabilities.ts) are generated from these;
 * test/unit/capabilities.test.ts walks them and checks both doors say the same thing.
 */
import type { z } from "zod";
import type { ActResult, AgentExecuteOptions, Capture, CaptureOptions, Page, RunEvent, SearchBackend, Service } from "../index.js";
import type { UrlPolicy } from "../util/url-policy.js";
import type { ConsoleEntry, ElementHandle, EmulationApplied, ErrorEntry, HandledDialog, NetworkEntry, PageLogKind, PageSnapshots, SessionEmulation, SessionRoute, SettingsModel, TraceStarted, TraceWritten } from "../internal.js";

/** How a snapshot is taken (PageSnapshots.take's options), and what it gives. */
export type SnapshotView = NonNullable<Parameters<PageSnapshots["take"]>[1]>;
export type TakenSnapshot = Awaited<ReturnType<PageSnapshots["take"]>>;

/** A line of the door's history of what a command did (the CLI's session history). */
export interface Noted {
  method: string;
  parameters: Record<string, unknown>;
  result: Record<string, unknown>;
}

/** Capability sets a host turns on with `svc mcp --caps` (core alone by default, so the tool list stays short). */
export const CAPS = ["core", "tabs", "forms", "devtools", "network", "pdf", "emulation", "agent", "web", "webmcp"] as const;
export type Cap = (typeof CAPS)[number];

export type Door = "cli" | "mcp";

/** How an MCP tool treats the world (the MCP spec's ToolAnnotations). */
export interface Annotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** Reads the page or the web; changes nothing. */
export const readOnly = (title: string): Annotations => ({ title, readOnlyHint: true, destructiveHint: false, openWorldHint: true });
/** Changes what the browser shows, but submits nothing (navigation, scrolling, hovering). */
export const moves = (title: string, idempotent = false): Annotations => ({ title, readOnlyHint: false, destructiveHint: false, idempotentHint: idempotent, openWorldHint: true });
/** Acts on the page as a user would: a click or a key may submit a form, buy, delete. */
export const acts = (title: string): Annotations => ({ title, readOnlyHint: false, destructiveHint: true, openWorldHint: true });

/** How a door names a property in a message: the CLI's flag (`--state`) or argument (`<target>`), the MCP tool's property (`state`). */
export type Spell = (property: string) => string;
/** What a door recorded its pages logging (console) or throwing (errors), oldest first. */
export interface PageLogView {
  entries: readonly (ConsoleEntry | ErrorEntry)[];
  /** A tab's number as this door numbers tabs (undefined: one it never numbered). */
  tabOf(target: string): number | undefined;
  /** Empties the kind's log (every tab's). */
  clear(): void;
}

/** The requests a door recorded its pages making, oldest first (the newest 1,000). */
export interface NetworkView {
  entries: readonly NetworkEntry[];
  /** Request `id`, or the door's error saying where it looked. */
  entry(id: string): NetworkEntry;
  /** Its response body as Chrome still holds it (at most 10 MB of characters; binary as base64). */
  body(id: string): Promise<{ body: string; base64Encoded: boolean; bytes: number }>;
  tabOf(target: string): number | undefined;
  /** Empties the log (every tab's). */
  clear(): void;
}

/**
 * What a handler gets from the door that called it: the Service on the door's browser, its tabs and its refs.
 * A capability that `needs: "none"` is run with no browser: `svc`, `page` and `resolve` throw, and it asks for
 * one only when it needs one (`browse`); one that `needs: "session"` gets the session and no page.
 */
export interface CapabilityContext {
  svc: Service;
  /** The call's cancellation: Ctrl-C (or the client going away) on the CLI, the client's cancel on MCP. */
  signal: AbortSignal;
  spell: Spell;
  /** Which door called: only for the words its users know (`--all` or `all`; the selected or the current tab). */
  door: Door;
  /** Rows of cells as this door lays out a table: aligned for a person on the CLI, one space apart (fewer tokens) on MCP. */
  columns(rows: readonly (readonly string[])[]): string[];
  /** The tab numbered `tab` as the door lists tabs, else the selected one; the selection does not move. */
  page(tab?: number): Promise<Page>;
  /** The element a ref of this door's latest snapshots (or any selector svc accepts) names on `page` (default: the selected tab). */
  resolve(target: string, page?: Page): Promise<ElementHandle>;
  /** The tab's number as this door lists tabs: given the first time the door sees it, never reused. */
  tabNumber(page: Page): number;
  /** A snapshot of `page` numbered through the door's refs (the CLI: the session's store; MCP: the client's), kept as the tab's last. */
  snapshot(page: Page, view: SnapshotView): Promise<TakenSnapshot>;
  /** A screenshot of `page`; `ifChanged` compares it with the tab's last one, wherever the door keeps that (the CLI: the session's state). */
  capture(page: Page, options: CaptureOptions): Promise<Capture>;
  /** Records what was done in the door's history (the CLI's session history; MCP keeps none). */
  note(entry: Noted): void;
  /** What the door's tabs emulate, kept for later tabs too: the CLI session's file and its host, MCP's browser. */
  emulation(): Promise<EmulationDoor>;
  /** The page log this door keeps: the session host's files on the CLI, the server's recorder on MCP. */
  pageLog(kind: PageLogKind): Promise<PageLogView>;
  /** The network log this door keeps: the session host's (asked to write it first) on the CLI, the server's recorder on MCP. */
  network(): Promise<NetworkView>;
  /** The routes the door's tabs answer or fail, later tabs too: the CLI session's file and its host, MCP's browser. */
  routes(): Promise<RoutesDoor>;
  /** The door's one Chrome trace: the session host's on the CLI (asked with control requests), the client's browser's on MCP. */
  trace(): Promise<TraceDoor>;
  /** The door's web search (CLI: search.url, SVC_SEARCH_URL or the platform; MCP: the server's); SEARCH_NOT_CONFIGURED without one. */
  searchBackend(): Promise<SearchBackend>;
  /**
   * Answers the door's open dialog with `answer`, else keeps it for the next one, wherever dialogs are answered: the
   * CLI session's stored answer (taken by its host or a command, whichever meets the dialog), MCP's browser.
   */
  answerDialog(answer: DialogChoice): Promise<DialogAnswered>;
  /** The browser, when it is known to show its window (`session 7f3a`, `this browser`): what only headless Chrome does is refused first. */
  headed(): string | undefined;
  /** `fn` on a page of a browser (CLI: the --session's selected tab, else a one-shot Chrome closed after; MCP: the client's tab). */
  browse<T>(fn: (page: Page, note: (entry: Noted) => void) => Promise<T>): Promise<T>;
  /**
   * The model a call that `asksModel` uses (`property`: another of `models`): on the CLI `--model` or the settings',
   * its key found before any browser starts (exit 9, or asked for at a terminal; not required of a literal act,
   * which asks only when no one element fits). Undefined on MCP: the server's own.
   */
  model(property?: string): DoorModel | undefined;
  /** What the door adds to an agent run on `page`: where its events go, the hooks it gives the run. */
  agentWatch(page: Page): Promise<AgentWatch>;
}

/**
 * A door's part in an agent run. The CLI: its live view at a terminal or JSON lines, `--record`'s screenshots and
 * report, `--ask-human`'s person; MCP each step as a progress notification, when its client asks.
 */
export interface AgentWatch {
  /** Each event of the run as it comes, masked by the library. */
  onEvent(event: RunEvent): void;
  /** What the door adds to the run: a person to ask, a hook after each step. */
  options: Pick<AgentExecuteOptions, "askHuman" | "askHumanTimeoutMs" | "onStepEnd">;
  /** After the run, however it ended: the door's outputs finished; what they add to the report (the CLI: the report's path). */
  finish(): Promise<Record<string, unknown>>;
}

/** A door's model for one call: the config the library takes, and its name for a report. */
export interface DoorModel {
  config: SettingsModel;
  name: string;
}

/** A one-time answer for a JavaScript dialog: OK (with what a prompt() returns) or Cancel. */
export interface DialogChoice {
  accept: boolean;
  promptText?: string;
}

/** What a door did with a dialog answer: the dialog open when it came (answered with it), else whether it still waits for the next. */
export interface DialogAnswered {
  /** Whose next dialog it answers, for a message: `session 7f3a`, `this browser`. */
  scope: string;
  answered?: HandledDialog;
  pending: boolean;
}

/** A door's trace, one at a time. */
export interface TraceDoor {
  /** Whose trace it is, for a message: `session 7f3a`, `this browser`. */
  scope: string;
  /** `screenshots`: also the frames of the selected (current) tab, on which the trace is then held. */
  start(categories: readonly string[], screenshots: boolean, maxSizeMb: number): Promise<TraceStarted>;
  /** Stops it and writes it to `path` (absolute, checked by the door), else to a new file of the door's own (MCP: its temp folder). */
  stop(path: string | undefined): Promise<TraceWritten>;
}

/** A door's emulation: its settings now, and setting them on every tab (later ones too). */
export interface EmulationDoor {
  /** Whose settings they are, for a message: `session 7f3a`, `this browser`. */
  scope: string;
  current(): SessionEmulation;
  set(next: SessionEmulation): Promise<EmulationApplied>;
  /**
   * The tab whose own view of the settings a report reads back. The CLI has none: its command attaches no page,
   * since a DevTools session leaving a page takes some of the emulation with it (navigator.onLine).
   */
  tab?(): Promise<Page>;
}

/** A door's network routes: the list now, and a new list set on every tab (later ones too). */
export interface RoutesDoor {
  /** Whose routes they are, for a message: `session 7f3a`, `this browser`. */
  scope: string;
  current(): SessionRoute[];
  /** The list checked as a whole (the store's rules) and applied; on how many tabs it took. */
  set(next: SessionRoute[]): Promise<EmulationApplied>;
}

/** A scroll that has no Action method (sideways, by pixels), read back from the page. */
export interface Scrolled {
  kind: "scrolled";
  target: string | null;
  where: string;
  scroller: "page" | "element";
  from: { x: number; y: number };
  to: { x: number; y: number };
  moved: boolean;
}

/** A move in a tab's history (back, forward, reload): where the tab is now. */
export interface Moved {
  kind: "moved";
  which: "back" | "forward" | "reload";
  url: string;
  title: string;
}

/** A navigation that loaded: where the tab is, its title and the server's status (null: none, as for data:). */
export interface Navigated {
  kind: "navigated";
  url: string;
  title: string;
  status: number | null;
}

/** One open tab as the doors list them. */
export interface TabRow {
  id: number;
  url: string;
  title: string;
  selected: boolean;
}

/** The tabs after a tabs action, by number; `changed`: the action opened, selected or closed one. */
export interface TabList {
  kind: "tabs";
  changed: boolean;
  selected: number | null;
  tabs: TabRow[];
}

/**
 * What most capabilities report: text for a person or a model, the same as data for `--json`, maybe an image.
 * `pageChanged`: the MCP door follows the text with the page after it, as it does for every act.
 */
export interface Report {
  kind: "report";
  text: string;
  data: Record<string, unknown>;
  /** MCP shows it inline; a CLI verb with an output file (CliDoor.output) writes its bytes there. */
  image?: { data: Buffer; mimeType: "image/png" | "image/jpeg" };
  pageChanged?: boolean;
  /** A line the MCP door puts above the text (the CLI's `--json` has it in `data`): `200 https://…`. */
  heading?: string;
  /** MCP embeds these bytes after the text as a resource (a PDF); the CLI writes `file` instead. */
  resource?: { bytes: Buffer; mimeType: string; uri: string };
  /** What the CLI's `-o FILE` writes (a door with `output`): these bytes; `--json` then says `path` and `bytes` instead of `data[replaces]`. */
  file?: { bytes: Buffer; replaces: string };
  /** The result is a failure to a person (an HTTP 404): the CLI fails with it unless `--json`, whose document carries the answer. */
  failure?: Error;
}

/**
 * An Action performed. `chosen`: an instruction chose it (act), so its report lists the steps taken and who chose
 * them (`model`: the model's name where the door knows it; `none` for a literal instruction).
 */
export interface Acted {
  kind: "act";
  result: ActResult;
  chosen?: { model?: string | undefined };
}

/** What a handler reports; each door renders it its own way (a line, JSON, the page after it). */
export type Outcome = Acted | Scrolled | Moved | Navigated | TabList | Report;

/** Another CLI verb for the same capability, with some properties preset (`dblclick` is `click --double`). */
export interface CliPreset {
  verb: string;
  description: string;
  examples: readonly string[];
  preset: Readonly<Record<string, unknown>>;
}

/** Another CLI verb for the same capability, the same in all but its help (`open` is `goto`). */
export interface CliAlias {
  verb: string;
  description: string;
  examples: readonly string[];
}

/** The CLI door: the verb, its positional arguments (named by property) and its help. */
export interface CliDoor {
  /** One word, or a group's subcommand (`network requests`: the group is declared with the registry's groups). */
  verb: string;
  aliases?: readonly CliAlias[];
  /** commander's argument syntax; each name is a property of the input (`<target> <value>`, `[target] [to]`). */
  args: string;
  /**
   * When the positionals cannot be read in order (`svc press Enter` and `svc press e1 Enter`): their properties.
   * It sees the flags too, for words whose meaning a flag changes (`svc set geo --clear`).
   */
  positional?(args: readonly string[], flags: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** With `positional`: the properties it fills (they are arguments, not flags). */
  fills?: readonly string[];
  description: string;
  /** The usage line, when commander's own (from `args`) would not show the forms the words take. */
  usage?: string;
  examples: readonly string[];
  /** The session host may run it: it drives the live session's page and never asks a model. */
  hosted: boolean;
  /** Properties the verb itself sets: a property only the other door offers, as the CLI always means it. */
  preset?: Readonly<Record<string, unknown>>;
  presets?: readonly CliPreset[];
  /** Flags spelled otherwise than `--kebab-name <value>` (a short alias, a named value): `{ output: "-o, --output <file>" }`. */
  flags?: Readonly<Record<string, string>>;
  /**
   * The verb writes the outcome's file (else its image) to a file: the property holding its path, checked before any
   * work (with `fallback`, a default name when it is left out); the handler is given the absolute path.
   */
  output?: { property: string; fallback?(input: Record<string, unknown>): string };
  /**
   * The `url` property (with `new` and the one-shot launch properties, ONE_SHOT_INPUT): the verb opens that
   * URL first, on the live session, else on a browser of its own for this command only.
   */
  opensUrl?: boolean;
  /** With no live session, one is started for it (configured defaults) rather than refused. */
  startsSession?: true;
  /**
   * Properties that are URLs as people type them (`localhost:3000` → http://…), checked by this policy before a
   * browser is touched; "typed": only read so, the handler checks it in its own words (fetch).
   */
  urls?: Readonly<Record<string, UrlPolicy | "typed">>;
  /** A verb that `needs: "none"`: `--session` applies only with this property set (a browser it asks for). */
  sessionWith?: string;
  /**
   * Properties whose value `@FILE` is that file's bytes (at most `maxBytes`), read by the CLI door before any browser:
   * the handler then gets a Buffer instead of the text. `why`: why the other door reads no file.
   */
  files?: Readonly<Record<string, { maxBytes: number; why: string }>>;
  /** Bad input is named by property (`numResults: …`, as the library and MCP name it) rather than by flag. */
  namesProperties?: boolean;
  /**
   * The verb's run is watched as it goes (the agent): a live view at a terminal, else JSON lines, one per event and
   * then the result (commands/door/agent.ts); it runs on the live session, else on a browser of its own.
   */
  live?: true;
}

export interface McpDoor {
  cap: Cap;
  annotations: Annotations;
}

export interface Capability<S extends z.ZodRawShape = z.ZodRawShape> {
  /** The MCP tool's name, and the CLI verb's unless the door says another. */
  name: string;
  /** One line: the MCP tool's description. */
  description: string;
  input: S;
  /** A property only one door has, and why (the capability test reads the reason). */
  only?: { readonly [K in keyof S]?: { door: Door; why: string } };
  cli?: CliDoor;
  mcp?: McpDoor;
  /**
   * What a door must give it: a browser (the default); the session alone, keeping state its host applies (`svc set`:
   * the CLI attaches no page; MCP's state is its browser's); or nothing (web search, a plain fetch; it may `browse`).
   */
  needs?: "browser" | "session" | "none";
  /** Checks that need more than one property (each property's own are in its schema): the message names the property as the door spells it. */
  check?(input: z.output<z.ZodObject<S>>, spell: Spell): string | undefined;
  /** This input asks a model (a literal act does not): the door finds the model and its key before any browser (CapabilityContext.model). */
  asksModel?(input: z.output<z.ZodObject<S>>): boolean | Promise<boolean>;
  /** Properties besides `model` that name a model the door finds the same way (the agent's executionModel). */
  models?: readonly string[];
  /**
   * What the input names, read before any browser starts, on every door (the CLI's files: `--var-file`, `--schema`):
   * the properties returned replace the input's. The message of a failure names the property as the door spells it.
   */
  read?(input: z.output<z.ZodObject<S>>, spell: Spell, door: Door): Promise<Partial<z.output<z.ZodObject<S>>>>;
  /** An input the declaration answers alone (a table it holds: `svc set --list`): no door starts or attaches a browser for it. */
  withoutBrowser?(input: z.output<z.ZodObject<S>>): Promise<Outcome> | undefined;
  run(ctx: CapabilityContext, input: z.output<z.ZodObject<S>>): Promise<Outcome>;
}

/** Identity, so each declaration's input type is inferred from its shape. */
export function capability<S extends z.ZodRawShape>(c: Capability<S>): Capability<S> {
  return c;
}

/** The properties a door offers (those marked for the other door only are left out). */
export function shapeFor(c: Capability, door: Door): z.ZodRawShape {
  return Object.fromEntries(Object.entries(c.input).filter(([k]) => (c.only?.[k]?.door ?? door) === door));
}

/** An outcome in one line, for a person or a model: the act's own message, or where the scroll left things. */
export function outcomeText(o: Outcome): string {
  if (o.kind === "act") return o.chosen ? chosenText(o.result, o.chosen.model) : o.result.message;
  if (o.kind === "report") return o.text;
  if (o.kind === "navigated") return `navigated to ${o.url}${o.status !== null && o.status >= 400 ? ` (HTTP ${o.status})` : ""}`;
  if (o.kind === "tabs") return o.tabs.map((t) => `${t.selected ? "*" : " "} ${t.id} ${t.title} ${t.url}`).join("\n");
  if (o.kind === "moved") return `${o.which === "reload" ? "reloaded" : `went ${o.which} to`} ${o.url}${o.title ? `  ${o.title}` : ""}`;
  return o.moved ? `scrolled ${o.where}: ${o.scroller} at x ${o.to.x}, y ${o.to.y} (was x ${o.from.x}, y ${o.from.y})` : `did not move: the ${o.scroller} is already at the edge (x ${o.to.x}, y ${o.to.y})`;
}

/** An act an instruction chose: its message (a failure says so), then each step, the cache's answer and the model. */
function chosenText(r: ActResult, model: string | undefined): string {
  const lines = [`${r.success ? "" : "failed: "}${r.message || `done: ${r.actionDescription}`}`];
  for (const a of r.actions) lines.push(`  ${a.method}${a.arguments.length ? `(${a.arguments.map((x) => JSON.stringify(x)).join(", ")})` : ""} ${a.selector}`);
  if (r.cacheStatus) lines.push(`  cache: ${r.cacheStatus}`);
  if (model) lines.push(`  model: ${model}`);
  return lines.join("\n");
}
