/**
 * Runs a capability's one handler (src/capabilities/) for its CLI verb and prints its outcome (print.ts). What the
 * declaration says it needs decides how: a browser (the live session's, or a one-shot one for a verb that opens a
 * URL), the session alone (`needs: "session"`), or nothing (`needs: "none"`).
 */
import { resolve } from "node:path";
import { type CliDoor, type CliVerb, cliFiles, cliFlags, cliInput, cliSpell, type DoorModel, longFlag } from "../../src/capabilities/index.js";
import { checkTypedUrl, ServiceInvalidArgumentError, touchSession, typedUrl } from "../../src/base.js";
import { ActFailedError } from "../core/errors.js";
import type { CloudGlobals } from "../core/cloud.js";
import { inCliWords, requireModel, resolveCliModel, withKey } from "../core/model.js";
import { checkOutputPath } from "../core/output-file.js";
import { checkUrl, type LaunchFlags, output, resolveSession, type RunContext, stateRoot, withLiveOrOneShot, withSession, withSessionOrStart } from "../core/runtime.js";
import { capabilityContext } from "./context.js";
import { openedTab, print } from "./print.js";

const MOVE_METHOD = { back: "goBack", forward: "goForward", reload: "reload" } as const;

export async function runCapability(g: CloudGlobals, v: CliVerb, positional: readonly string[], flags: Readonly<Record<string, unknown>>): Promise<void> {
  const c = v.capability;
  const door = c.cli!;
  const input = cliInput(v, positional, flags);
  // A URL as typed, refused by its policy before any browser (or session) is started for it.
  for (const [p, policy] of Object.entries(door.urls ?? {})) if (typeof input[p] === "string") input[p] = policy === "typed" ? typedUrl(input[p]) : checkTypedUrl(input[p], policy);
  const alone = await c.withoutBrowser?.(input as never);
  if (alone) return print(g, output(g), alone);
  // The output file is checked before any work, and the handler is given the absolute path it is written to.
  const path = outputPath(door, input);
  // A `@FILE` value is its file's bytes (CliDoor.files); what the input names (files) is read, and the model and its key found, before any browser starts (exit 9 without one).
  cliFiles(v, input);
  Object.assign(input, await c.read?.(input as never, cliSpell(v), "cli"));
  const asks = (await c.asksModel?.(input as never)) === true;
  // A --model given to an input that may not ask (a literal act falls back to it) is checked too, its key not required.
  const models = asks || typeof input.model === "string" ? await cliModels(g, v, input, asks) : undefined;
  if (c.needs === "none") return runWithoutBrowser(g, v, input, path);
  if (c.needs === "session") {
    const root = stateRoot();
    const session = touchSession(await resolveSession(root, g.session), root);
    const out = output(g);
    return print(g, out, await c.run(capabilityContext({ g, v, out, session }), input as never), { head: { session: session.id } });
  }
  const url = door.opensUrl && typeof input.url === "string" ? checkUrl(input.url) : undefined;
  if (door.opensUrl && url === undefined && input.new) throw new ServiceInvalidArgumentError(`--new applies to ${v.verb} URL`, { hint: `svc ${v.verb} https://example.com --new` });
  // A watched run (the agent): its view is up, its --record directory made, before any browser starts.
  const watch = door.live ? await (await import("./agent.js")).startAgentWatch(g, input) : undefined;
  const run = async ({ svc, out, session, note }: RunContext) => {
    if (url !== undefined) {
      await svc.page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: svc.page.url() } });
    }
    const before = new Set(svc.context.pages().map((p) => p.targetId));
    const outcome = await c.run(capabilityContext({ g, v, out, session, svc, note, models, watch, oneShot: url !== undefined }), input as never).catch((e: unknown) => {
      throw inCliWords(e);
    });
    if (watch) return watch.print(outcome, session);
    if (outcome.kind === "act" && !outcome.result.success) throw new ActFailedError(`${v.verb} failed: ${outcome.result.message}`);
    // A history move is no act: the session's history records it as the page method it is.
    if (outcome.kind === "moved") note({ method: MOVE_METHOD[outcome.which], parameters: {}, result: { url: outcome.url, title: outcome.title } });
    // A tab the press opened was announced before the press's last answer; wait until its page is set up.
    await svc.context.idle();
    // The tab list names the tabs it opened itself.
    const opened = outcome.kind === "tabs" ? undefined : await openedTab(svc, before, session, out);
    print(g, out, outcome, { head: { session: session?.id }, path, opened });
  };
  const extras = { ...watch?.extras, ...(typeof input.timeout === "number" ? { timeoutMs: input.timeout } : {}), ...(typeof input.cacheDir === "string" ? { cacheDir: resolve(input.cacheDir) } : {}) };
  try {
    if (url !== undefined || watch) await withLiveOrOneShot(g, input as LaunchFlags & { new?: boolean }, run, extras, watch?.announce);
    else await (door.startsSession ? withSessionOrStart(g, v.verb, run, extras) : withSession(g, run, extras));
  } finally {
    await watch?.close();
  }
}

/**
 * `--model` or the settings' model, and each other model the input names (`models`); `keyed`: with the key it will
 * use (asked for at a terminal).
 */
async function cliModels(g: CloudGlobals, v: CliVerb, input: Record<string, unknown>, keyed: boolean): Promise<ReadonlyMap<string, DoorModel>> {
  const resolved = await resolveCliModel(typeof input.model === "string" ? { model: input.model } : {});
  const spec = keyed ? await requireModel(g, resolved) : resolved;
  const models = new Map<string, DoorModel>([["model", { config: spec.model, name: spec.model.modelName }]]);
  for (const p of v.capability.models ?? []) {
    if (typeof input[p] !== "string") continue;
    const config = await withKey(g, await resolveCliModel({ model: input[p] }), cliSpell(v)(p));
    models.set(p, { config, name: config.modelName });
  }
  return models;
}

function outputPath(door: CliDoor, input: Record<string, unknown>): string | undefined {
  if (!door.output) return undefined;
  const raw = input[door.output.property] ?? door.output.fallback?.(input);
  if (raw === undefined) return undefined;
  const path = checkOutputPath(String(raw));
  input[door.output.property] = path;
  return path;
}

/** A capability that needs no browser (search, a plain fetch): run here; one it asks for is the --session's, else a one-shot. */
async function runWithoutBrowser(g: CloudGlobals, v: CliVerb, input: Record<string, unknown>, path: string | undefined): Promise<void> {
  const c = v.capability;
  const needs = c.cli?.sessionWith;
  if (needs && g.session !== undefined && !input[needs]) {
    const f = cliFlags(c).find((x) => x.property === needs);
    throw new ServiceInvalidArgumentError(`--session applies with ${f ? longFlag(f) : needs} (a plain ${v.verb} uses no browser)`);
  }
  const out = output(g);
  print(g, out, await c.run(capabilityContext({ g, v, out, session: undefined }), input as never), { path });
}
