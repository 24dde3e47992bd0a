/**
 * extract(): no instruction → the page's snapshot text; an instruction → `{extraction}`; a zod schema →
 * an object validated by that schema. The JSON Schema the model sees is derived by zod itself; URL fields
 * become "ref of the link" fields (a model copies refs reliably, URLs not), mapped back to real addresses.
 */
import { z } from "zod";
import type { Page } from "../browser/page.js";
import { callOn } from "../browser/element.js";
import { elementFromNode } from "../browser/resolve.js";
import type { RefMap } from "../snapshot/index.js";
import { ServiceInvalidArgumentError } from "../errors.js";
import type { OperationContext } from "./context.js";
import { infer } from "./inference.js";
import { EXTRACT_TEXT_OUTPUT, extractSystemPrompt, userMessage } from "./prompts.js";
import type { PageSnapshots, TakeOptions } from "./snapshots.js";
import { promptVariables } from "./variables.js";
import { schemaText, snapshotLimit } from "./budget.js";

export async function extractPageText(page: Page, snapshots: PageSnapshots, options: TakeOptions = {}): Promise<{ text: string; tokens: number }> {
  const snap = await snapshots.take(page, options);
  return { text: snap.text, tokens: snap.tokens };
}

type Path = Array<string | number | "*">;
type JsonSchema = Record<string, unknown>;

/** Replaces URL-typed string fields with ref fields; returns where they were. */
function refFieldsFor(schema: JsonSchema): { schema: JsonSchema; urlPaths: Path[] } {
  const urlPaths: Path[] = [];
  const walk = (node: unknown, path: Path): unknown => {
    if (!node || typeof node !== "object") return node;
    const s = node as JsonSchema;
    if (s.type === "string" && (s.format === "uri" || s.format === "url")) {
      urlPaths.push(path);
      const { format: _format, pattern: _pattern, ...rest } = s;
      return { ...rest, description: `${typeof s.description === "string" ? s.description + " — " : ""}ref of the link element (e.g. e12)` };
    }
    const out: JsonSchema = { ...s };
    if (s.properties && typeof s.properties === "object") {
      out.properties = Object.fromEntries(Object.entries(s.properties as JsonSchema).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    if (s.items) out.items = walk(s.items, [...path, "*"]);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) if (Array.isArray(s[key])) out[key] = (s[key] as unknown[]).map((v) => walk(v, path));
    return out;
  };
  return { schema: walk(schema, []) as JsonSchema, urlPaths };
}

async function hrefOf(page: Page, refs: RefMap, ref: string): Promise<string | undefined> {
  const target = refs.get(ref);
  const frame = target && page.frames.get(target.frameId);
  if (!target || !frame) return undefined;
  const el = await elementFromNode(frame, target.backendNodeId).catch(() => undefined);
  if (!el) return undefined;
  const href = await callOn<string | null>(el, function (this: Element) {
    const a = this.closest?.("a[href], area[href]") ?? this.querySelector?.("a[href]");
    return a ? (a as HTMLAnchorElement).href : null;
  });
  return href ?? undefined;
}

/** Walks `value` along each URL path, turning refs into absolute URLs (relative URLs are resolved too). */
async function mapUrls(page: Page, refs: RefMap, value: unknown, paths: Path[]): Promise<unknown> {
  const visit = async (node: unknown, path: Path): Promise<unknown> => {
    if (path.length === 0) {
      if (typeof node !== "string") return node;
      const ref = /^\[?(?:ref=)?(e\d+)\]?$/.exec(node.trim())?.[1];
      if (ref) {
        const href = await hrefOf(page, refs, ref);
        if (!href) throw new Error(`"${node}" is not a link on the page; give the ref of a link element`);
        return href;
      }
      try {
        return new URL(node, page.url()).href;
      } catch {
        return node;
      }
    }
    const [head, ...rest] = path;
    if (head === "*" && Array.isArray(node)) return Promise.all(node.map((n) => visit(n, rest)));
    if (node && typeof node === "object" && typeof head === "string" && head in node) {
      return { ...(node as object), [head]: await visit((node as Record<string, unknown>)[head], rest) };
    }
    return node;
  };
  let out = value;
  for (const p of paths) out = await visit(out, p);
  return out;
}

export interface ModelExtractOptions {
  selector?: string;
}

export async function extractWithModel<T>(ctx: OperationContext, instruction: string | undefined, schema: z.ZodType<T> | undefined, options: ModelExtractOptions = {}): Promise<T | { extraction: string }> {
  const snap = await ctx.snapshots.take(ctx.page, {
    ...(options.selector ? { selector: options.selector } : {}),
    ...snapshotLimit(ctx, extractSystemPrompt(ctx.systemPrompt), instruction, schemaText(schema)),
  });
  const user = userMessage({ instruction: instruction ?? "Extract the data described by the schema.", variables: promptVariables(ctx.variables), url: ctx.page.url(), snapshot: snap.text });
  if (!schema) {
    return infer(ctx.inference, {
      system: extractSystemPrompt(ctx.systemPrompt),
      user,
      output: EXTRACT_TEXT_OUTPUT,
      validate: (v) => z.object({ extraction: z.string() }).parse(v),
    });
  }
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any" }) as JsonSchema;
  } catch (e) {
    throw new ServiceInvalidArgumentError(`schema: cannot be expressed as JSON Schema: ${(e as Error).message}`);
  }
  delete jsonSchema.$schema;
  const wrapped = jsonSchema.type === "object";
  const { schema: modelSchema, urlPaths } = refFieldsFor(wrapped ? jsonSchema : { type: "object", properties: { value: jsonSchema }, required: ["value"] });
  return infer(ctx.inference, {
    system: extractSystemPrompt(ctx.systemPrompt),
    user,
    output: { name: "extract", schema: modelSchema, strict: false },
    validate: async (v) => {
      const mapped = await mapUrls(ctx.page, snap.refs, v, urlPaths);
      const candidate = wrapped ? mapped : (mapped as { value?: unknown })?.value;
      const parsed = schema.safeParse(candidate);
      if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
      return parsed.data;
    },
  });
}
