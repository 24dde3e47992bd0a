/**
 * The session host's control requests (commands/host/main.ts; sent by ask.ts): one declaration per
 * control — its arguments as a zod schema and what the host does — answered even while a command runs.
 * A line that is not a known control with valid arguments is not a control request (the host then reads it
 * as a command line, and refuses it if it is not one either).
 */
import { z } from "zod";
import { NETWORK_REQUEST_ID } from "../../src/base.js";
import { CONTROL_LINE_BYTES } from "./ask.js";
import type { KeptSession } from "./keeper.js";

/** What a control runs against: the keeper's connection and what it applies to the pages. */
export interface ControlContext {
  kept: KeptSession;
  id: string;
  root: string;
  /** Aborted when the asker's connection closes (a long-pending control, `ask`, is withdrawn then). */
  signal: AbortSignal;
}

interface ControlDef<S extends z.ZodObject<z.ZodRawShape>> {
  args: S;
  run(args: z.infer<S>, ctx: ControlContext): Promise<Record<string, unknown>>;
}

function control<S extends z.ZodObject<z.ZodRawShape>>(args: S, run: ControlDef<S>["run"]): ControlDef<S> {
  return { args: args.strict() as unknown as S, run };
}

const CONTROLS = {
  /** Reads the session's emulation file again and applies it to every page. */
  emulation: control(z.object({}), async (_args, ctx) => ({ ...(await ctx.kept.emulation.reload()) })),
  /** Reads the session's routes file again and applies it to every page. */
  routes: control(z.object({}), async (_args, ctx) => ({ ...(await ctx.kept.fetch.reload()) })),
  /** Starts the session's trace (one at a time). */
  "trace-start": control(
    // maxSizeMb's range is the trace's own check (BrowserTrace.start).
    z.object({ categories: z.array(z.string().min(1).max(200)).min(1).max(100), screenshotsOf: z.object({ target: z.string().max(100).optional() }).strict().optional(), maxSizeMb: z.number().optional() }),
    async (args, ctx) => ({ ...(await ctx.kept.trace.start(args.categories, args.screenshotsOf, args.maxSizeMb)) }),
  ),
  /** Stops it and writes it to an absolute path. */
  "trace-stop": control(z.object({ path: z.string().min(2).max(4096).startsWith("/") }), async (args, ctx) => ({ ...(await ctx.kept.trace.stop(args.path)) })),
  /** Writes the network log's pending batch now (`svc network requests` then reads the file). */
  networkFlush: control(z.object({}), async (_args, ctx) => ({ entries: ctx.kept.network.flush() })),
  /** A response body, asked of the page's session where Chrome keeps it. */
  networkBody: control(z.object({ id: z.string().regex(NETWORK_REQUEST_ID) }), async ({ id }, ctx) => ({ ...(await ctx.kept.network.body(id)) })),
  /** `svc har start`. */
  harStart: control(z.object({}), async (_args, ctx) => ctx.kept.network.harStart()),
  /** `svc har stop FILE` (an absolute path, checked by the command and again here). */
  /** `svc view`: the live view's URL (started first when `start`), and how many watch it; `launch`: also a launch file's path (`svc view --open`, view.ts). */
  view: control(z.object({ start: z.boolean(), launch: z.boolean().optional() }), async ({ start, launch }, ctx) => {
    if (start) await ctx.kept.view.start();
    const file = launch ? await ctx.kept.view.launch() : undefined;
    return { ...(ctx.kept.view.url !== undefined ? { url: ctx.kept.view.url } : {}), ...(file ? { launch: file } : {}), viewers: ctx.kept.view.viewers };
  }),
  /** `svc agent --ask-human`: the question in the live view; answered once a viewer presses Continue (or `answered: false` at the timeout). */
  ask: control(z.object({ message: z.string().min(1).max(2000), timeoutMs: z.number().int().min(1000).max(3_600_000) }), async ({ message, timeoutMs }, ctx) => ({
    ...(await ctx.kept.view.ask(message, timeoutMs, ctx.signal)),
  })),
  harStop: control(z.object({ file: z.string().min(1).max(4096), version: z.string().max(100) }), async ({ file, version }, ctx) => ({ ...(await ctx.kept.network.harStop(file, { name: "svc", version })) })),
} satisfies Record<string, ControlDef<z.ZodObject<z.ZodRawShape>>>;

export type ControlName = keyof typeof CONTROLS;

export interface ParsedControl {
  name: ControlName;
  args: Record<string, unknown>;
}

/** A control request line, checked; undefined when the line is something else. */
export function parseControl(line: string): ParsedControl | undefined {
  if (line.length > CONTROL_LINE_BYTES) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const { control: name, ...rest } = v as Record<string, unknown>;
  if (typeof name !== "string" || !Object.hasOwn(CONTROLS, name)) return undefined;
  const parsed = CONTROLS[name as ControlName].args.safeParse(rest);
  return parsed.success ? { name: name as ControlName, args: parsed.data as Record<string, unknown> } : undefined;
}

/** Runs a parsed control: its reply line's object (`t: "ok"` with its fields, or `t: "error"` with a code). */
export async function runControl(control: ParsedControl, ctx: ControlContext): Promise<object> {
  try {
    const def = CONTROLS[control.name] as ControlDef<z.ZodObject<z.ZodRawShape>>;
    return { ...(await def.run(control.args, ctx)), t: "ok" };
  } catch (e) {
    const err = e as { message?: unknown; code?: unknown };
    return { t: "error", message: String(err?.message ?? e).slice(0, 1000), ...(typeof err?.code === "string" ? { code: err.code } : {}) };
  }
}
