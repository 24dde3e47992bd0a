/**
 * How a capability is declared once for every door: a zod input whose properties carry their descriptions,
 * the doors that offer it (a CLI verb, an MCP tool) and one handler over the library. The CLI's registry
 * (commands/registry/capabilities.ts) and the MCP server (src/mcp/capabilities.ts) are generated from these;
 * test/unit/capabilities.test.ts walks them and checks both doors say the same thing.
 */
import type { z } from "zod";
import type { ActResult, Page, Service } from "../index.js";
import type { ConsoleEntry, ElementHandle, ErrorEntry, NetworkEntry, PageLogKind } from "../internal.js";

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

/** What a handler gets from the door that called it: the Service on the door's browser, its tabs and its refs. */
export interface CapabilityContext {
  svc: Service;
  /** Which door called: only for the words its users know (`--all` or `all`; the selected or the current tab). */
  door: Door;
  /** Rows of cells as this door lays out a table: aligned for a person on the CLI, one space apart (fewer tokens) on MCP. */
  columns(rows: readonly (readonly string[])[]): string[];
  /** The tab numbered `tab` as the door lists tabs, else the selected one; the selection does not move. */
  page(tab?: number): Promise<Page>;
  /** The element a ref of this door's latest snapshots (or any selector svc accepts) names on `page` (default: the selected tab). */
  resolve(target: string, page?: Page): Promise<ElementHandle>;
  /** The page log this door keeps: the session host's files on the CLI, the server's recorder on MCP. */
  pageLog(kind: PageLogKind): Promise<PageLogView>;
  /** The network log this door keeps: the session host's (asked to write it first) on the CLI, the server's recorder on MCP. */
  network(): Promise<NetworkView>;
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

/**
 * What most capabilities report: text for a person or a model, the same as data for `--json`, maybe an image.
 * `pageChanged`: the MCP door follows the text with the page after it, as it does for every act.
 */
export interface Report {
  kind: "report";
  text: string;
  data: Record<string, unknown>;
  image?: { data: Buffer; mimeType: "image/png" | "image/jpeg" };
  pageChanged?: boolean;
}

/** What a handler reports; each door renders it its own way (a line, JSON, the page after it). */
export type Outcome = { kind: "act"; result: ActResult } | Scrolled | Moved | Report;

/** Another CLI verb for the same capability, with some properties preset (`dblclick` is `click --double`). */
export interface CliPreset {
  verb: string;
  description: string;
  examples: readonly string[];
  preset: Readonly<Record<string, unknown>>;
}

/** The CLI door: the verb, its positional arguments (named by property) and its help. */
export interface CliDoor {
  /** One word, or a group's subcommand (`network requests`: the group is declared with the registry's groups). */
  verb: string;
  /** commander's argument syntax; each name is a property of the input (`<target> <value>`, `[target] [to]`). */
  args: string;
  /** When the positionals cannot be read in order (`svc press Enter` and `svc press e1 Enter`): their properties. */
  positional?(args: readonly string[]): Record<string, unknown>;
  /** With `positional`: the properties it fills (they are arguments, not flags). */
  fills?: readonly string[];
  description: string;
  examples: readonly string[];
  /** The session host may run it: it drives the live session's page and never asks a model. */
  hosted: boolean;
  /** Properties the verb itself sets: a property only the other door offers, as the CLI always means it. */
  preset?: Readonly<Record<string, unknown>>;
  presets?: readonly CliPreset[];
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
  /** Checks that need more than one property (each property's own are in its schema): the message names the property. */
  check?(input: z.output<z.ZodObject<S>>): string | undefined;
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
  if (o.kind === "act") return o.result.message;
  if (o.kind === "report") return o.text;
  if (o.kind === "moved") return `${o.which === "reload" ? "reloaded" : `went ${o.which} to`} ${o.url}${o.title ? `  ${o.title}` : ""}`;
  return o.moved ? `scrolled ${o.where}: ${o.scroller} at x ${o.to.x}, y ${o.to.y} (was x ${o.from.x}, y ${o.from.y})` : `did not move: the ${o.scroller} is already at the edge (x ${o.to.x}, y ${o.to.y})`;
}
