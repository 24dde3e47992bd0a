/**
 * The model of each batch task (its `model`, else the CLI's default: SVC_MODEL, config `model`), resolved
 * once per distinct name with its key, as `svc agent` resolves its own (commands/core/model.ts).
 */
import { type CliModel, resolveCliModel, withKey } from "../core/model.js";
import type { GlobalOptions } from "../core/output.js";
import type { BatchTask } from "./tasks.js";

/**
 * `prompt`: a missing key may be asked for at a terminal (the local pool resolves every model before the
 * first task starts); a worker never asks, a task whose key is missing fails with that error.
 */
export function taskModels(g: GlobalOptions, prompt: boolean): (task: Pick<BatchTask, "model">) => Promise<CliModel> {
  const seen = new Map<string, Promise<CliModel>>();
  const globals: GlobalOptions = prompt ? g : { ...g, json: true };
  return (task) => {
    const name = task.model ?? "";
    let model = seen.get(name);
    if (!model) {
      model = resolveCliModel(task.model !== undefined ? { model: task.model } : {}).then((spec) => withKey(globals, spec, task.model !== undefined ? "model" : "--model"));
      seen.set(name, model);
      // A failed lookup is not kept: the next task asks again (the key may have been set meanwhile).
      model.catch(() => seen.delete(name));
    }
    return model;
  };
}
