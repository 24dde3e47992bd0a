/**
 * What the model is told, and the JSON it must answer with. One place for every operation, so the prompt
 * layout (which the fake model server in tests also reads) is defined once.
 *
 * User message layout:
 *   Instruction: <instruction>
 *   Variables: %name% (description), …           (only when variables are given; names, never values)
 *   Page: <url>
 *   <snapshot outline: one element per line, "e12 role name">
 */
import { MODEL_ACTION_METHODS } from "./action.js";
import type { StructuredOutput } from "../model/types.js";
import { DERIVED_NAME_GUIDE } from "../snapshot/index.js";

export interface PromptVariable {
  name: string;
  description?: string;
}

const SNAPSHOT_GUIDE =
  "The page is given as an outline: one element per line, indented by nesting. Lines starting with a ref " +
  "(e1, e2, …) are elements you can act on: `e12 button Submit` is a button named Submit; `: value` shows a " +
  "field's current value; [checked] [expanded] [disabled] show states; `iframe` lines hold the content of frames; " +
  `${DERIVED_NAME_GUIDE}.`;

export function actSystemPrompt(custom?: string): string {
  return [
    "You operate a web browser for a user. Choose the ONE element and method that perform the instruction on the page.",
    SNAPSHOT_GUIDE,
    `Methods: ${MODEL_ACTION_METHODS.join(", ")}. fill replaces a field's value; type appends; press takes a key name (Enter, Tab, ArrowDown…); ` +
      "selectOptionFromDropdown is only for native dropdowns (combobox lines followed by `options:`), with the option text as argument (one argument per option for a multiple select); " +
      "scrollTo takes a percentage such as \"50%\"; dragAndDrop takes the drop target's ref as argument.",
    "For a custom dropdown (a button or combobox without `options:`), click it open and set twoStep to true; you will then be shown the page again to pick the option.",
    "Where the instruction mentions a variable such as %name%, put the variable reference itself (e.g. %name%) in arguments, never a guessed value.",
    "If no element fits, answer with an empty ref and explain in description.",
    custom ? `Additional instructions from the user: ${custom}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export function observeSystemPrompt(custom?: string): string {
  return [
    "You help a user operate a web browser. List the elements of the page that match the instruction, best first, each with the method and arguments that would perform it.",
    SNAPSHOT_GUIDE,
    `Methods: ${MODEL_ACTION_METHODS.join(", ")}.`,
    "Without an instruction, list the page's most useful actionable elements.",
    custom ? `Additional instructions from the user: ${custom}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export function extractSystemPrompt(custom?: string): string {
  return [
    "You extract information from a web page for a user. Answer only from the page content; do not invent data.",
    SNAPSHOT_GUIDE,
    "Where a field asks for a link or URL, answer with the ref of the link element (e.g. e12); it is turned into the link's address for you.",
    custom ? `Additional instructions from the user: ${custom}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export function userMessage(parts: { instruction: string | undefined; variables?: PromptVariable[]; url: string; snapshot: string; note?: string }): string {
  const lines = [`Instruction: ${parts.instruction?.trim() || "(none)"}`];
  if (parts.variables?.length) lines.push(`Variables: ${parts.variables.map((v) => `%${v.name}%${v.description ? ` (${v.description})` : ""}`).join(", ")}`);
  if (parts.note) lines.push(parts.note);
  lines.push(`Page: ${parts.url}`, parts.snapshot);
  return lines.join("\n");
}

const actionProperties = {
  ref: { type: "string", description: "ref of the element, e.g. e12; empty if none fits" },
  method: { type: "string", enum: [...MODEL_ACTION_METHODS] },
  arguments: { type: "array", items: { type: "string" } },
  description: { type: "string", description: "short description of the element and action" },
};

export const ACT_OUTPUT: StructuredOutput = {
  name: "act",
  strict: true,
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["ref", "method", "arguments", "description", "twoStep"],
    properties: { ...actionProperties, twoStep: { type: "boolean", description: "true when this opens a custom dropdown whose option must be chosen next" } },
  },
};

export const OBSERVE_OUTPUT: StructuredOutput = {
  name: "observe",
  strict: true,
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["elements"],
    properties: {
      elements: {
        type: "array",
        items: { type: "object", additionalProperties: false, required: ["ref", "method", "arguments", "description"], properties: actionProperties },
      },
    },
  },
};

export const EXTRACT_TEXT_OUTPUT: StructuredOutput = {
  name: "extract",
  strict: true,
  schema: { type: "object", additionalProperties: false, required: ["extraction"], properties: { extraction: { type: "string" } } },
};
