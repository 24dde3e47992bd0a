/** `svc config get|set|unset|list|path`: stored settings; secrets are masked on every output. */
import type { GlobalOptions } from "../core/output.js";
import { createOutput, table } from "../core/output.js";
import { SETTINGS, displayValue, openSettings, parseSetting, settingDef } from "../core/settings.js";

export async function get(g: GlobalOptions, key: string): Promise<void> {
  const def = settingDef(key);
  const settings = await openSettings();
  const eff = settings.effective(key);
  const shown = eff.value === undefined ? null : def.kind === "secret" ? displayValue(def, eff.value) : eff.value;
  createOutput(g).result({ key, value: shown, source: eff.source, ...(eff.envVar ? { envVar: eff.envVar } : {}) }, () =>
    eff.value === undefined ? [] : displayValue(def, eff.value),
  );
}

export async function set(g: GlobalOptions, key: string, raw: string): Promise<void> {
  const def = settingDef(key);
  const value = parseSetting(def, raw);
  const settings = await openSettings();
  settings.set(key, value);
  createOutput(g).result({ key, value: def.kind === "secret" ? displayValue(def, value) : value }, () => `${key} = ${displayValue(def, value)}`);
}

export async function unset(g: GlobalOptions, key: string): Promise<void> {
  settingDef(key);
  const settings = await openSettings();
  settings.unset(key);
  createOutput(g).result({ key }, () => `${key} unset`);
}

export async function list(g: GlobalOptions): Promise<void> {
  const settings = await openSettings();
  const rows = SETTINGS.map((def) => {
    const eff = settings.effective(def.key);
    return {
      key: def.key,
      value: eff.value === undefined ? null : def.kind === "secret" ? displayValue(def, eff.value) : eff.value,
      source: eff.source,
      ...(eff.envVar ? { envVar: eff.envVar } : {}),
      description: def.description,
    };
  });
  createOutput(g).result({ path: settings.path, settings: rows }, () =>
    table([["KEY", "VALUE", "SOURCE"], ...rows.map((r) => [r.key, r.value === null ? "-" : String(r.value), r.envVar ? `env ${r.envVar}` : r.source])]),
  );
}

export async function path(g: GlobalOptions): Promise<void> {
  const settings = await openSettings();
  createOutput(g).result({ path: settings.path }, () => settings.path);
}
