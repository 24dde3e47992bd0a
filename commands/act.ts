/** `svc act --action JSON|@file.json`: run one Action deterministically, with no model. */
import { readFileSync } from "node:fs";
import { ServiceError, ServiceInvalidArgumentError } from "../src/errors.js";
import type { GlobalOptions } from "./output.js";
import { loadLibrary, withSession } from "./runtime.js";

/** An Action the library ran but reported as failed (success: false): exit 1, message from the library. */
export class ActFailedError extends ServiceError {
  override readonly code = "ACT_FAILED";
}

export function readActionArgument(raw: string): unknown {
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

export async function act(g: GlobalOptions, opts: { action: string }): Promise<void> {
  // Validate before touching any session: bad input fails fast and leaves nothing behind.
  const json = readActionArgument(opts.action);
  const { parseAction } = await loadLibrary();
  const action = parseAction(json);
  await withSession(g, async ({ svc, out, session }) => {
    const result = await svc.act(action);
    if (!result.success) throw new ActFailedError(`act failed: ${result.message}`);
    out.result({ session: session?.id, result }, () => result.message || `done: ${result.actionDescription}`);
  });
}
