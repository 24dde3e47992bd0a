/**
 * `svc extract ["instruction"] [URL] [--schema schema.json] [--selector SEL]`: no instruction and no schema prints
 * the page's text (the snapshot); an instruction gets `{extraction}`, or with `--schema` an object validated against
 * it (zod built from the JSON Schema). A URL without --session uses a one-shot browser.
 */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { type ModelFlags, readVariables, requireModel, resolveCliModel, withModelKey } from "../core/model.js";
import type { GlobalOptions } from "../core/output.js";
import { type LaunchFlags, type RunContext, withLiveOrOneShot, withSession } from "../core/runtime.js";
import { checkUrl, looksLikeUrl } from "../core/url.js";

export interface ExtractFlags extends LaunchFlags, ModelFlags {
  /** A browser of its own for this command, even when a session is live. */
  new?: boolean;
  schema?: string;
  selector?: string;
  variables?: string[];
  varFile?: string;
}

const DEFAULT_INSTRUCTION = "Extract the data described by the schema.";

/** Split the positional arguments into at most one instruction and at most one URL. */
function splitArguments(args: readonly string[]): { instruction?: string; url?: string } {
  let instruction: string | undefined;
  let url: string | undefined;
  for (const arg of args) {
    if (looksLikeUrl(arg)) {
      if (url !== undefined) throw new ServiceInvalidArgumentError(`extract takes at most one URL, got "${url}" and "${arg}"`);
      url = arg.trim();
    } else {
      if (instruction !== undefined) {
        throw new ServiceInvalidArgumentError(`extract takes at most one instruction, got "${instruction}" and "${arg}"`, { hint: "quote the instruction as one argument" });
      }
      instruction = arg;
    }
  }
  return { ...(instruction !== undefined ? { instruction } : {}), ...(url !== undefined ? { url } : {}) };
}

/** A JSON Schema file → a zod schema, converted by zod itself (src/util/json-schema.ts). */
async function readSchema(file: string): Promise<z.ZodType> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ServiceInvalidArgumentError(`cannot read --schema ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`--schema ${file} is not valid JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new ServiceInvalidArgumentError(`--schema ${file} must be a JSON Schema object`);
  const { fromJsonSchema } = await import("../../src/base.js");
  try {
    return fromJsonSchema(json);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`--schema ${file} is not a JSON Schema zod can use: ${(e as Error).message.split("\n")[0]}`);
  }
}

export async function extract(g: GlobalOptions, args: readonly string[], flags: ExtractFlags): Promise<void> {
  const { instruction, url: rawUrl } = splitArguments(args);
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const usesModel = instruction !== undefined || flags.schema !== undefined;
  if (!usesModel) {
    for (const [flag, set] of [["--model", flags.model], ["--timeout", flags.timeout], ["--var", flags.variables], ["--var-file", flags.varFile]] as const) {
      if (set !== undefined) throw new ServiceInvalidArgumentError(`${flag} applies to an instruction or --schema`, { hint: 'svc extract "the page title"' });
    }
  }
  if (instruction !== undefined && !instruction.trim()) throw new ServiceInvalidArgumentError("extract: the instruction is empty");
  // Validate everything before a browser is touched.
  const schema = flags.schema !== undefined ? await readSchema(flags.schema) : undefined;
  const spec = usesModel ? await requireModel(g, await resolveCliModel(flags)) : undefined;
  const variables = usesModel ? await readVariables(flags.variables, flags.varFile) : {};

  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const where = { ...(session ? { session: session.id } : {}), url: page.url() };
    if (!spec) {
      const { pageText } = flags.selector ? ((await svc.extract({ selector: flags.selector })) as { pageText: string }) : await svc.extract();
      out.result({ ...where, pageText }, () => pageText);
      return;
    }
    const options = { variables, ...(flags.selector ? { selector: flags.selector } : {}), ...(spec.timeout !== undefined ? { timeout: spec.timeout } : {}) };
    const result: unknown = await withModelKey(g, spec, (model) =>
      schema ? svc.extract(instruction ?? DEFAULT_INSTRUCTION, schema, { ...options, model }) : svc.extract(instruction!, { ...options, model }),
    );
    out.result({ ...where, model: spec.model.modelName, result }, () => {
      const extraction = !schema ? (result as { extraction?: unknown }).extraction : undefined;
      return typeof extraction === "string" ? extraction : JSON.stringify(result, null, 2);
    });
  };
  if (url !== undefined) await withLiveOrOneShot(g, flags, run);
  else await withSession(g, run);
}
