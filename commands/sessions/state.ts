/**
 * `svc state save|load FILE` and `svc sessions start --state FILE`: a session's login kept in a file. With a state
 * key configured every saved file is encrypted; `--encrypt` only insists on that (an error without a key), so a key
 * once set never lets a plain login slip out.
 */
import { resolve } from "node:path";
import type { StorageState } from "../../src/index.js";
import { ServiceInvalidArgumentError, ServiceStateError } from "../../src/base.js";
import { readSavedState, writeSavedState } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { loadLibrary, withSession } from "../core/runtime.js";
import { openSettings } from "../core/settings.js";

async function stateKey(): Promise<string | undefined> {
  const v = (await openSettings()).effective("state.key").value;
  return typeof v === "string" ? v : undefined;
}

/** Read and validate a state file (decrypting it with the configured key when it is encrypted). */
export async function readStateFile(file: string): Promise<StorageState> {
  const path = resolve(file);
  const text = readSavedState(path, await stateKey());
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceStateError(`${path} is not a state file (not JSON, and not an encrypted svc state)`);
  }
  return (await loadLibrary()).parseStorageState(value, "state file");
}

/** Apply a state to the session `g.session` names (or the current one). */
export async function applyState(g: GlobalOptions, state: StorageState): Promise<void> {
  await withSession(g, ({ svc }) => svc.context.addState(state));
}

const summary = (s: StorageState) => `${s.cookies.length} cookie(s), ${s.origins.length} origin(s) with storage`;

export async function save(g: GlobalOptions, file: string, opts: { encrypt?: boolean }): Promise<void> {
  const path = resolve(file);
  const key = await stateKey();
  if (opts.encrypt && key === undefined) {
    throw new ServiceInvalidArgumentError("--encrypt needs a state key: set one with `svc config set state.key …` (or SVC_STATE_KEY)");
  }
  await withSession(g, async ({ svc, out }) => {
    const state = await svc.context.storageState();
    writeSavedState(path, `${JSON.stringify(state, null, 2)}\n`, key);
    out.result({ file: path, encrypted: key !== undefined, cookies: state.cookies.length, origins: state.origins.map((o) => o.origin) }, () => [
      `saved ${summary(state)} to ${path}${key !== undefined ? " (encrypted)" : " (not encrypted: set state.key to encrypt)"}`,
    ]);
  });
}

export async function load(g: GlobalOptions, file: string): Promise<void> {
  const state = await readStateFile(file);
  await withSession(g, async ({ svc, out }) => {
    await svc.context.addState(state);
    out.result({ file: resolve(file), cookies: state.cookies.length, origins: state.origins.map((o) => o.origin) }, () => [`loaded ${summary(state)} from ${resolve(file)}`]);
  });
}
