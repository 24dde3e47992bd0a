/**
 * The provider-neutral computer-use contract (cua mode): a session is one conversation with a provider's computer-use
 * tool; each turn sends a screenshot (the first with the task) and returns the next actions in one neutral shape, or
 * only a message when finished. Coordinates are screenshot pixels.
 */
import type { ModelImage, ModelUsage } from "./types.js";
import type { Abortable } from "../util/abort.js";

export interface ComputerPoint {
  x: number;
  y: number;
}

export type ComputerAction =
  | { type: "click"; x: number; y: number; button?: "left" | "right" | "middle"; clickCount?: number }
  | { type: "move"; x: number; y: number }
  | { type: "drag"; path: ComputerPoint[] }
  | { type: "scroll"; x: number; y: number; scrollX: number; scrollY: number }
  | { type: "type"; text: string }
  /** Keys pressed together (a combination such as Control+A), normalized to svc's key names. */
  | { type: "keypress"; keys: string[] }
  | { type: "wait"; ms?: number }
  | { type: "screenshot" }
  /** An action svc does not map (reported back to the model as an error). */
  | { type: "unsupported"; name: string };

export interface ComputerCall {
  /** The provider's call id (OpenAI call_id, Anthropic tool_use id). */
  id: string;
  action: ComputerAction;
}

export interface ComputerCallResult {
  id: string;
  ok: boolean;
  error?: string;
}

export interface ComputerUseSetup {
  /** Instructions (system prompt). */
  system: string;
  /** The task, sent with the first screenshot. */
  instruction: string;
  /** The screenshot size in pixels (what coordinates refer to). */
  display: { width: number; height: number };
}

export interface ComputerUseInput extends Abortable {
  /** The page as it is now. */
  screenshot: ModelImage;
  /** How the previous turn's calls went (empty on the first turn). */
  results: ComputerCallResult[];
}

export interface ComputerUseTurn {
  /** Empty: the model is finished and `text` is its final message. */
  calls: ComputerCall[];
  /** The model's text (a message, or its reasoning summary beside calls). */
  text: string;
  usage: ModelUsage;
  model: string;
}

export interface ComputerUseSession {
  next(input: ComputerUseInput): Promise<ComputerUseTurn>;
}

const KEY_NAMES: Record<string, string> = {
  enter: "Enter",
  return: "Enter",
  kp_enter: "Enter",
  esc: "Escape",
  escape: "Escape",
  tab: "Tab",
  backspace: "Backspace",
  delete: "Delete",
  del: "Delete",
  space: "Space",
  " ": "Space",
  up: "ArrowUp",
  arrowup: "ArrowUp",
  down: "ArrowDown",
  arrowdown: "ArrowDown",
  left: "ArrowLeft",
  arrowleft: "ArrowLeft",
  right: "ArrowRight",
  arrowright: "ArrowRight",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  page_up: "PageUp",
  prior: "PageUp",
  pagedown: "PageDown",
  page_down: "PageDown",
  next: "PageDown",
  shift: "Shift",
  ctrl: "Control",
  control: "Control",
  alt: "Alt",
  option: "Alt",
  cmd: "Meta",
  command: "Meta",
  meta: "Meta",
  super: "Meta",
  win: "Meta",
};

/** A provider's key name (OpenAI `CTRL`, `ENTER`; xdotool `Return`, `ctrl`, `Page_Down`) → svc's (`Control`, `Enter`). */
export function normalizeKey(name: string): string {
  const known = KEY_NAMES[name.toLowerCase()];
  if (known) return known;
  if (/^f([1-9]|1[0-2])$/i.test(name)) return name.toUpperCase();
  return name.length === 1 ? name.toLowerCase() : name;
}
