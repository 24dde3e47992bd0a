/**
 * Stored settings (conf): model API keys and default launch options. The file lives in `SVC_CONFIG_DIR`
 * (or the platform config dir), is named config.json and is kept at mode 0600 because it holds keys.
 * Effective value precedence: command-line flag > environment variable > stored > built-in default.
 * conf is imported lazily: it costs ~130 ms, which commands that never read settings should not pay.
 */
import { ServiceStateError } from "../../src/base.js";
import { configDir, describeFsError, type Effective, effectiveSetting, errorMessage, mkdirp, settingDef, type SettingValue, storagePath } from "../../src/base.js";
import { chmodSync } from "node:fs";

interface ConfLike {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  readonly path: string;
}

export interface SettingsStore {
  readonly path: string;
  stored(key: string): SettingValue | undefined;
  set(key: string, value: SettingValue): void;
  unset(key: string): void;
  /** flag > env > stored > default. `flags` maps keys to already-parsed flag values. */
  effective(key: string, flags?: Readonly<Record<string, SettingValue | undefined>>, env?: NodeJS.ProcessEnv): Effective;
}

export { configDir };
export { SETTINGS, type SettingValue, displayValue, parseSetting, parseViewport, settingDef, splitList } from "../../src/base.js";

export async function openSettings(env: NodeJS.ProcessEnv = process.env): Promise<SettingsStore> {
  const cwd = configDir(env);
  try {
    mkdirp(cwd, 0o700);
  } catch (e) {
    throw new ServiceStateError(`cannot use config directory ${cwd}: ${describeFsError(e)}`, { hint: "set SVC_CONFIG_DIR to a writable directory", cause: e });
  }
  const { default: Conf } = await import("conf");
  let conf: ConfLike;
  try {
    conf = new Conf<Record<string, unknown>>({ projectName: "svc", configName: "config", configFileMode: 0o600, cwd }) as unknown as ConfLike;
  } catch (e) {
    throw new ServiceStateError(`cannot open config in ${cwd}: ${errorMessage(e)}`, {
      hint: "fix or delete the config file, or set SVC_CONFIG_DIR",
      cause: e,
    });
  }
  const path = conf.path;
  const write = (fn: () => void) => {
    try {
      fn();
      // conf honours configFileMode on create; chmod anyway so a file made by an older version or by hand
      // is tightened the first time svc writes it.
      chmodSync(path, 0o600);
    } catch (e) {
      throw new ServiceStateError(`cannot write config file ${path}: ${errorMessage(e)}`, { cause: e });
    }
  };
  const stored = (key: string): SettingValue | undefined => {
    let v: unknown;
    try {
      v = conf.get(key);
    } catch (e) {
      throw new ServiceStateError(`cannot read config file ${path}: ${errorMessage(e)}`, {
        hint: "fix or delete the config file, or set SVC_CONFIG_DIR",
        cause: e,
      });
    }
    return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : undefined;
  };
  return {
    path,
    stored: (key) => stored(storagePath(key)),
    set: (key, value) => {
      const at = storagePath(key);
      write(() => conf.set(at, value));
    },
    unset: (key) => {
      const at = storagePath(key);
      write(() => conf.delete(at));
    },
    effective: (key, flags = {}, e = env) => effectiveSetting(settingDef(key), flags, e, stored),
  };
}
