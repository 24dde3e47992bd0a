/**
 * `svc act "instruction"`: a literal instruction (src/operations/literal.ts) that fits one element runs with no model;
 * otherwise one model call picks the element and method, the deterministic path runs it
 * (with `--cache-dir`, a stored success is replayed with no model call). `svc act --action JSON|@file.json`:
 * run one Action deterministically, with no model.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ServiceError, ServiceInvalidArgumentError } from "../../src/base.js";
import { type ModelFlags, readVariables, requireModel, resolveCliModel, withModelKey } from "../core/model.js";
import { parseTimeout } from "../core/numbers.js";
import { ActFailedError } from "../core/errors.js";
import type { GlobalOptions } from "../core/output.js";
import { loadLibrary, withSession } from "../core/runtime.js";

function readActionArgument(raw: string): unknown {
  let text = raw;
  let from = "--action";
  if (raw.startsWith("@")) {
    const file = raw.slice(1);
    from = file;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ServiceInvalidArgumentError(`cannot read action file ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    throw new ServiceInvalidArgumentError(`${from} is not valid JSON: ${why}`, {
      hint: `expected {"selector":"...","description":"...","method":"click","arguments":[]}`,
    });
  }
}

export interface ActFlags extends ModelFlags {
  action?: string;
  variables?: string[];
  varFile?: string;
  cacheDir?: string;
}

export async function act(g: GlobalOptions, instruction: string | undefined, opts: ActFlags): Promise<void> {
  if (opts.action !== undefined && instruction !== undefined) {
    throw new ServiceInvalidArgumentError("give either an instruction or --action, not both", { hint: 'svc act "click the Submit button"  or  svc act --action @action.json' });
  }
  if (opts.action === undefined) return actWithModel(g, instruction, opts);
  for (const [flag, set] of [["--model", opts.model], ["--variables", opts.variables], ["--var-file", opts.varFile], ["--cache-dir", opts.cacheDir]] as const) {
    if (set !== undefined) throw new ServiceInvalidArgumentError(`${flag} applies to an instruction, not to --action`);
  }
  // Validate before touching any session: bad input fails fast and leaves nothing behind.
  const json = readActionArgument(opts.action);
  const timeout = parseTimeout(opts.timeout);
  const { parseAction } = await loadLibrary();
  const action = parseAction(json);
  await withSession(g, async ({ svc, out, session }) => {
    const result = await svc.act(action, timeout !== undefined ? { timeout } : {});
    if (!result.success) throw new ActFailedError(`act failed: ${result.message}`);
    out.result({ session: session?.id, result }, () => result.message || `done: ${result.actionDescription}`);
  }, timeout !== undefined ? { timeoutMs: timeout } : {});
}

async function actWithModel(g: GlobalOptions, instruction: string | undefined, opts: ActFlags): Promise<void> {
  if (instruction === undefined || !instruction.trim()) {
    throw new ServiceInvalidArgumentError("act needs an instruction or --action", { hint: 'svc act "click the Submit button"' });
  }
  const variables = await readVariables(opts.variables, opts.varFile);
  const { parseLiteral } = await import("../../src/internal.js");
  // A literal instruction may need no model (one element fits it); any other needs one before a browser starts.
  const resolved = await resolveCliModel(opts);
  const spec = parseLiteral(instruction) ? resolved : await requireModel(g, resolved);
  await withSession(
    g,
    async ({ svc, out, session }) => {
      // Printed as returned: the library never rewrites a result (it holds `%name%` where the model wrote one).
      const result = await withModelKey(g, spec, (model) =>
        svc.act(instruction, { model, variables, ...(spec.timeout !== undefined ? { timeout: spec.timeout } : {}) }),
      );
      if (!result.success) throw new ActFailedError(`act failed: ${result.message}`);
      // A literal instruction the library performed with no model says so (result.model "none").
      out.result({ session: session?.id, model: result.model ?? spec.model.modelName, result }, () => {
        const lines = [result.message || `done: ${result.actionDescription}`];
        for (const a of result.actions) lines.push(`  ${a.method}${a.arguments.length ? `(${a.arguments.map((x) => JSON.stringify(x)).join(", ")})` : ""} ${a.selector}`);
        if (result.cacheStatus) lines.push(`  cache: ${result.cacheStatus}`);
        if (result.model) lines.push(`  model: ${result.model}`);
        return lines;
      });
    },
    { ...(opts.cacheDir !== undefined ? { cacheDir: resolve(opts.cacheDir) } : {}), ...(spec.timeout !== undefined ? { timeoutMs: spec.timeout } : {}) },
  );
}
