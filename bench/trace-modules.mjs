// Preload for the CLI start check: records every module a process loads into $SVC_TRACE_MODULES, one per
// line. ESM: a resolve hook (registered from this same file, runs in the hooks thread). CommonJS: at exit,
// the keys of require.cache (every require(), and every CJS package imported from ESM, lands there).
import { register, createRequire } from "node:module";
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

let out = process.env.SVC_TRACE_MODULES;

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (out) appendFileSync(out, result.url + "\n");
  return result;
}

if (isMainThread && out) {
  register(import.meta.url, { data: { out } });
  const cache = createRequire(import.meta.url).cache;
  process.on("exit", () => appendFileSync(out, Object.keys(cache).map((k) => "file://" + k + "\n").join("")));
}
