/**
 * Masking for a whole agent run. Besides the plain value (what operations/variables.ts masks), a run
 * meets values URL-encoded: a form submitted with GET puts them in the next page's address, which the
 * model, the events and the history all see. Each variable is masked in its plain, percent-encoded and
 * form-encoded spellings. Images (base64) are left alone: masking must not corrupt a screenshot.
 */
import type { LLMClient } from "../model/types.js";
import type { Variables } from "../operations/variables.js";

function valueOf(v: Variables[string]): string {
  return String(typeof v === "object" ? v.value : v);
}

export type Masker = <T>(value: T) => T;

/** `minLength`: values shorter than this are left alone (4 for prompts: shorter ones would mangle refs and words). */
export function masker(vars: Variables, minLength = 1): Masker {
  const pairs: Array<[string, string]> = [];
  for (const [name, v] of Object.entries(vars)) {
    const value = valueOf(v);
    if (value.length < minLength) continue;
    const spellings = new Set([value, encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, "+"), encodeURI(value)]);
    for (const s of spellings) pairs.push([s, `%${name}%`]);
  }
  pairs.sort((a, b) => b[0].length - a[0].length);
  const text = (s: string) => {
    let out = s;
    for (const [needle, replacement] of pairs) if (out.includes(needle)) out = out.split(needle).join(replacement);
    return out;
  };
  const deep = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map((v) => deep(v));
    if (value && typeof value === "object") {
      if (key === "image" || key === "images") return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, k)]));
    }
    return value;
  };
  if (pairs.length === 0) return <T>(value: T) => value;
  return <T>(value: T) => deep(value) as T;
}

/** A client whose every outgoing text (system and messages) is masked: no variable value reaches a model. */
export function maskingClient(client: LLMClient, mask: Masker): LLMClient {
  return {
    modelName: client.modelName,
    generate: (req) => client.generate({ ...req, system: mask(req.system), messages: req.messages.map((m) => ({ ...m, content: mask(m.content) })) }),
  };
}
