/**
 * `svc init`: ask for model API keys (masked) and default launch options, store them with conf.
 * Empty answers keep what is stored; nothing is written until every question is answered, so Ctrl-C
 * midway leaves the config as it was.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { GlobalOptions } from "../core/output.js";
import { createOutput } from "../core/output.js";
import { type SettingValue, SETTINGS, displayValue, openSettings, parseSetting, parseViewport, settingDef } from "../core/settings.js";

export async function init(g: GlobalOptions): Promise<void> {
  if (!process.stdin.isTTY) {
    throw new ServiceInvalidArgumentError("svc init needs an interactive terminal", { hint: "use `svc config set KEY VALUE` in scripts" });
  }
  const { password, confirm, input, select } = await import("@inquirer/prompts");
  const settings = await openSettings();
  const changes = new Map<string, SettingValue | undefined>();

  for (const def of SETTINGS.filter((d) => d.kind === "secret" && d.init)) {
    const current = settings.stored(def.key);
    const answer = await password({
      message: `${def.description}${current !== undefined ? ` [${displayValue(def, current)}; Enter keeps it]` : " (Enter to skip)"}:`,
      mask: "*",
    });
    if (answer.trim()) changes.set(def.key, parseSetting(def, answer));
  }

  // A model server on this machine (ollama/…, lmstudio/…, vllm/…, llamacpp/…): no key; probed for its models.
  const local = await confirm({ message: "Use a local model server (Ollama, LM Studio, vLLM, llama.cpp) as the default model?", default: false });
  if (local) {
    const { probeLocalServers } = await import("./local-models.js");
    const probes = await probeLocalServers();
    const preset = await select({
      message: "Which server?",
      choices: probes.map((p) => ({
        name: `${p.server.label} (${p.server.baseURL}${p.models ? `: answering, ${p.models.length} model${p.models.length === 1 ? "" : "s"}` : ": not answering now"})`,
        value: p.server.preset,
      })),
      default: probes.find((p) => p.models)?.server.preset,
    });
    const probe = probes.find((p) => p.server.preset === preset)!;
    const name = await input({
      message: `Model name on ${probe.server.label}:`,
      default: probe.models?.[0] ?? "",
      validate: (v) => (v.trim() && !/\s/.test(v.trim()) ? true : "a model name, e.g. llama3.1:8b"),
    });
    changes.set("model", `${probe.server.preset}/${name.trim()}`);
  } else if (await confirm({ message: "Use another OpenAI-compatible endpoint (a base URL of your own) as the default model?", default: false })) {
    changes.set("model.baseURL", await askSetting(input, "model.baseURL", "Base URL of the endpoint (e.g. http://gpu-box:8000/v1):", true));
    changes.set("model", await askSetting(input, "model", "Model name at that endpoint (e.g. llama3.1:8b):", true));
  }

  changes.set("search.url", await askSetting(input, "search.url", "SearXNG instance for svc search and the agent's search tool (Enter to skip):", false));

  const headless = await confirm({
    message: "Run Chrome headless by default?",
    default: settings.stored("browser.headless") !== false,
  });
  changes.set("browser.headless", headless);

  const exe = await input({
    message: "Chrome/Chromium executable (Enter for auto-detect / CHROME_PATH):",
    default: (settings.stored("browser.executablePath") as string | undefined) ?? "",
  });
  changes.set("browser.executablePath", exe.trim() ? exe.trim() : undefined);

  const viewport = await input({
    message: "Default viewport WIDTHxHEIGHT (Enter for Chrome's default):",
    default: (settings.stored("browser.viewport") as string | undefined) ?? "",
    validate: (v) => {
      if (!v.trim()) return true;
      try {
        parseViewport(v);
        return true;
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  changes.set("browser.viewport", viewport.trim() ? viewport.trim().toLowerCase() : undefined);

  for (const [key, value] of changes) {
    if (value === undefined) settings.unset(key);
    else settings.set(key, value);
  }
  const summary = [...changes].map(([key, value]) => ({ key, value: value === undefined ? null : displayValue(settingDef(key), value) }));
  createOutput(g).result({ path: settings.path, saved: summary }, () => [
    `saved to ${settings.path}`,
    ...summary.map((s) => `  ${s.key} = ${s.value ?? "(unset)"}`),
  ]);
}

/**
 * One setting asked as text, checked as `svc config set` checks it (the prompt repeats until it parses).
 * Enter keeps what is stored; `required`: an empty answer is refused when nothing is stored.
 */
async function askSetting(input: typeof import("@inquirer/prompts").input, key: string, message: string, required: boolean): Promise<SettingValue | undefined> {
  const def = settingDef(key);
  const stored = (await openSettings()).stored(key);
  const answer = await input({
    message,
    default: stored !== undefined ? String(stored) : "",
    validate: (v) => {
      if (!v.trim()) return required ? `${key}: an answer is needed` : true;
      try {
        parseSetting(def, v.trim());
        return true;
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  return answer.trim() ? parseSetting(def, answer.trim()) : undefined;
}
