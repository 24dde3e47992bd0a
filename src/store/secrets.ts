/**
 * A CLI session's secrets: `<state>/sessions/<id>.secrets` (mode 0600, written atomically), next to the
 * session's record, so a value given to one command (`svc act … --var pw=…`) is masked in every later
 * command of the same session (the page may still show it). The values themselves are stored: a salted
 * hash cannot mask text. The file goes with the session (`svc sessions end`, a session found dead).
 */
import { ServiceStateError } from "../errors.js";
import { Secrets } from "../util/secrets.js";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { secretsPath, sessionsDir } from "./session-records.js";

export interface StoredSecret {
  name: string;
  value: string;
}

/** Bounds the file: a long session keeps its most recent values. */
const MAX_SECRETS = 500;

export function sessionSecretStore(id: string, root: string = resolveStateDir()): { load(): StoredSecret[]; save(secrets: readonly StoredSecret[]): void } {
  const path = secretsPath(root, id);
  return {
    load() {
      const text = readIfExists(path);
      if (text === undefined) return [];
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new ServiceStateError(`corrupt secrets file ${path}: not JSON`, { cause: e, hint: "delete the file (later commands then no longer mask the values it held)" });
      }
      const list = (value as { secrets?: unknown } | null)?.secrets;
      if (!Array.isArray(list)) throw new ServiceStateError(`corrupt secrets file ${path}: secrets: expected an array`, { hint: "delete the file" });
      return list.filter((s): s is StoredSecret => !!s && typeof s === "object" && typeof (s as StoredSecret).name === "string" && typeof (s as StoredSecret).value === "string");
    },
    /** Adds these to what the file holds (another command of the session may have saved meanwhile). */
    save(secrets) {
      if (secrets.length === 0) return;
      const byValue = new Map(this.load().map((x) => [x.value, x]));
      let added = false;
      for (const x of secrets) if (!byValue.has(x.value)) (byValue.set(x.value, { name: x.name, value: x.value }), (added = true));
      if (!added) return;
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify({ secrets: [...byValue.values()].slice(-MAX_SECRETS) })}\n`, 0o600);
    },
  };
}

/** The session's stored secrets as a masker (each value shown as `%name%`). */
export function sessionMasker(id: string, root: string = resolveStateDir()): Secrets {
  const secrets = new Secrets();
  for (const s of sessionSecretStore(id, root).load()) secrets.add(s.name, s.value);
  return secrets;
}
