/**
 * How a capability is declared once for every door: a zod input whose properties carry their descriptions,
 * the doors that offer it (a CLI verb, an MCP tool) and one handler over the library. The CLI's registry
 * (commands/registry/capabilities.ts) and the MCP server (src/mcp/capabilities.ts) are generated from these;
 * test/unit/capabilities.test.ts walks them and checks both doors say the same thing.
 */
import type { z } from "zod";
import type { ActResult, Page, SearchBackend, Service } from "../index.js";
import type { ElementHandle } from "../internal.js";

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

/** A line of the CLI session's history a handler adds (the library records its own operations itself). */
export interface Noted {
  method: string;
  parameters: Record<string, unknown>;
  result: unknown;
}

/**
 * What a handler gets from the door that called it: the Service on the door's browser, its tabs and its refs.
 * A capability that `needs: "none"` is run with no browser: `svc`, `page` and `resolve` throw, and it asks for
 * one only when it needs one (`browse`).
 */
export interface CapabilityContext {
  svc: Service;
  /** The tab numbered `tab` as the door lists tabs, else the selected one; the selection does not move. */
  page(tab?: number): Promise<Page>;
  /** The element a ref of this door's latest snapshots (or any selector svc accepts) names on `page` (default: the selected tab). */
  resolve(target: string, page?: Page): Promise<ElementHandle>;
  /** The door's web search (CLI: search.url, SVC_SEARCH_URL or the platform; MCP: the server's); SEARCH_NOT_CONFIGURED without one. */
  searchBackend(): Promise<SearchBackend>;
  /** `fn` on a page of a browser (CLI: the --session's selected tab, else a one-shot Chrome closed after; MCP: the client's tab). */
  browse<T>(fn: (page: Page, note: (entry: Noted) => void) => Promise<T>): Promise<T>;
  /** Aborted when the caller goes away (Ctrl-C on the CLI). */
  signal?: AbortSignal | undefined;
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
  /** A line the MCP door puts above the text (the CLI's `--json` has it in `data`): `200 https://…`. */
  heading?: string;
  /** What the CLI's `-o FILE` writes (a door with `output`): these bytes; `--json` then says `path` and `bytes` instead of `data[replaces]`. */
  file?: { bytes: Buffer; replaces: string };
  /** The result is a failure to a person (an HTTP 404): the CLI fails with it unless `--json`, whose document carries the answer. */
  failure?: Error;
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
  presets?: readonly CliPreset[];
  /** Short flags by property (`{ numResults: "n" }` → `-n, --num-results <n>`). */
  short?: Readonly<Record<string, string>>;
  /** The property that is a URL as people type it (`localhost:3000` → http://localhost:3000). */
  url?: string;
  /** The `output` property is a file the door writes the report's `file` to (checked before anything runs). */
  output?: boolean;
  /** A verb that `needs: "none"`: `--session` applies only with this property set (a browser it asks for). */
  sessionWith?: string;
  /** Bad input is named by property (`numResults: …`, as the library and MCP name it) rather than by flag. */
  namesProperties?: boolean;
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
  /** "none": run with no browser (web search, a plain fetch); it may still `browse`. Default "browser". */
  needs?: "browser" | "none";
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
