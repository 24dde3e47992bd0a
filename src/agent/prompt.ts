/**
 * What the agent model is told: one user message per step, in src/operations/prompts.ts's layout (the fake model server
 * reads it like any prompt): instruction, variable names (never values), step count, a line per earlier step, once each
 * the last long output, dialogs and downloads since, then the current URL and outline. Earlier pages live on as history
 * lines, so a step costs one page.
 */
import type { AgentMode } from "../events.js";
import type { PromptVariable } from "../operations/prompts.js";
import type { AgentTool } from "./tools.js";
import { DERIVED_NAME_GUIDE } from "../snapshot/index.js";

const OUTLINE_GUIDE =
  "The page is an outline: one element per line, indented by nesting. Lines starting with a ref (e1, e2, …) are elements you can act on: " +
  "`e12 button Submit` is a button named Submit; `: value` shows a field's value; [checked] [expanded] [disabled] show states; " +
  "`options:` lists a native dropdown's choices; `iframe` lines hold the content of frames; " +
  `${DERIVED_NAME_GUIDE}.`;

export function agentSystemPrompt(tools: readonly AgentTool[], mode: AgentMode, custom?: string): string {
  return [
    "You are a browser agent: you carry out the user's task in a real web browser, one tool call per step, until it is done.",
    "Every step shows the task, the steps so far (one line each) and the CURRENT page.",
    OUTLINE_GUIDE,
    mode === "hybrid" ? "A screenshot of the viewport is attached to each step; clickAt, typeAt and dragAt take its pixel coordinates. Prefer refs when the element is in the outline." : "",
    'Answer with JSON: "reasoning" (one or two sentences), "tool" (a tool name) and "args" (that tool\'s arguments).',
    "Tools:",
    ...tools.map((t) => `- ${t.name}: ${t.description}`),
    "Rules: use refs of the current page only (refs change from step to step). Prefer perform and fillForm (direct) over act. " +
      "Where a variable applies, write its reference (e.g. %email%) in the arguments, never a guessed value. " +
      "When the task is complete, call done with the answer the user asked for; if it cannot be done, call done with success false and say why.",
    custom ? `Additional instructions from the user: ${custom}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export interface HistoryLine {
  step: number;
  tool: string;
  args: unknown;
  ok: boolean;
  summary: string;
  /** The URL after the step, when it changed. */
  url?: string;
}

export interface StepPrompt {
  instruction: string;
  variables: PromptVariable[];
  step: number;
  maxSteps: number;
  history: readonly HistoryLine[];
  /** The previous step's long output (shown once). */
  detail?: { step: number; tool: string; text: string };
  note?: string;
  /** Dialogs answered since the previous step (describeDialog lines). */
  dialogs?: readonly string[];
  /** Downloads finished since the previous step (describeDownload lines). */
  downloads?: readonly string[];
  screenshot?: { width: number; height: number };
  /** The page's own tools this step (tools-webmcp.ts pageToolLines). */
  pageTools?: readonly string[];
  url: string;
  snapshot: string;
}

/** Arguments as compact JSON, long strings shortened (a fillForm of a long text must not bloat every later step). */
export function compactArgs(args: unknown): string {
  const json = JSON.stringify(args, (_k, v: unknown) => (typeof v === "string" && v.length > 80 ? `${v.slice(0, 77)}…` : v));
  return json === undefined ? "{}" : json.length > 300 ? `${json.slice(0, 299)}…` : json;
}

function historyText(h: HistoryLine): string {
  return `${h.step}. ${h.tool} ${compactArgs(h.args)} → ${h.ok ? "ok" : "error"}: ${h.summary}${h.url ? ` [page: ${h.url}]` : ""}`;
}

/** At most 5 lines: a page that asks in a loop must not flood the prompt. */
function dialogLines(dialogs: readonly string[]): string[] {
  const shown = dialogs.slice(-5).map((d) => `- ${d}`);
  return dialogs.length > 5 ? [`- (${dialogs.length - 5} earlier dialogs not shown)`, ...shown] : shown;
}

export function stepMessage(p: StepPrompt): string {
  const lines = [`Instruction: ${p.instruction.trim()}`];
  if (p.variables.length) lines.push(`Variables: ${p.variables.map((v) => `%${v.name}%${v.description ? ` (${v.description})` : ""}`).join(", ")}`);
  lines.push(`Step ${p.step} of ${p.maxSteps} (${p.maxSteps - p.step + 1} left including this one).`);
  if (p.history.length) lines.push("Steps so far:", ...p.history.map(historyText));
  if (p.detail) lines.push(`Output of step ${p.detail.step} (${p.detail.tool}):`, ...p.detail.text.split("\n").map((l) => `  ${l}`));
  if (p.note) lines.push(p.note);
  if (p.dialogs?.length) lines.push("Dialogs since the last step:", ...dialogLines(p.dialogs));
  if (p.downloads?.length) lines.push("Downloads since the last step:", ...p.downloads.slice(-5).map((d) => `- ${d}`));
  if (p.pageTools?.length) lines.push(...p.pageTools);
  if (p.screenshot) lines.push(`Screenshot: attached, ${p.screenshot.width}×${p.screenshot.height} pixels.`);
  lines.push(`Page: ${p.url}`, p.snapshot);
  return lines.join("\n");
}
