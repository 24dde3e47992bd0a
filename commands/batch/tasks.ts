/**
 * The task file of `svc batch`: JSON lines, one agent task each. Every line is validated before anything
 * runs (a bad line is a one-line INVALID_ARGUMENT naming its line number and field). Blank lines and lines
 * starting with `#` are skipped; the task's `index` is its position among the tasks (0-based), and the
 * results keep that order.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { VariablesSchema } from "../../src/index.js";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { describeFsError, describeIssue, fromJsonSchema } from "../../src/base.js";
import { checkUrl } from "../core/url.js";

const TaskSchema = z.strictObject({
  /** Echoed in the result, so a caller can join results to its own records. */
  id: z.union([z.string().min(1), z.number()]).optional(),
  instruction: z.string().trim().min(1, "the instruction is empty"),
  url: z.string().optional(),
  maxSteps: z.number().int().positive().optional(),
  /** Wall time of this task in ms (default: `--task-timeout`). */
  timeoutMs: z.number().int().positive().optional(),
  variables: VariablesSchema.optional(),
  model: z.string().trim().min(1).optional(),
  /** A JSON Schema for the structured output of `done` (returned in `metadata.output`). */
  output: z.record(z.string(), z.unknown()).optional(),
});
export type BatchTask = z.infer<typeof TaskSchema> & { index: number; line: number };

/** One task object (a parsed line) validated; `where` prefixes every message (`tasks.jsonl line 3`). */
function parseTask(raw: unknown, index: number, line: number, where: string): BatchTask {
  const parsed = TaskSchema.safeParse(raw);
  if (!parsed.success) throw new ServiceInvalidArgumentError(`${where}: ${describeIssue(parsed.error)}`);
  const task = parsed.data;
  if (task.url !== undefined) {
    try {
      task.url = checkUrl(task.url);
    } catch (e) {
      throw new ServiceInvalidArgumentError(`${where}: url: ${(e as Error).message}`);
    }
  }
  if (task.output !== undefined) {
    try {
      fromJsonSchema(task.output);
    } catch (e) {
      throw new ServiceInvalidArgumentError(`${where}: output: not a usable JSON Schema (${(e as Error).message.split("\n")[0]})`);
    }
  }
  return { ...task, index, line };
}

function parseTasks(text: string, file: string): BatchTask[] {
  const tasks: BatchTask[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const src = lines[i]!.trim();
    if (!src || src.startsWith("#")) continue;
    const where = `${file} line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(src);
    } catch (e) {
      throw new ServiceInvalidArgumentError(`${where}: not JSON (${(e as Error).message})`);
    }
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ServiceInvalidArgumentError(`${where}: expected a JSON object with an "instruction"`);
    tasks.push(parseTask(raw, tasks.length, i + 1, where));
  }
  if (!tasks.length) throw new ServiceInvalidArgumentError(`${file} holds no tasks`, { hint: '{"instruction": "…", "url": "https://…"} per line' });
  return tasks;
}

export function readTasks(file: string): BatchTask[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ServiceInvalidArgumentError(`cannot read ${file}: ${describeFsError(e)}`);
  }
  return parseTasks(text, file);
}
