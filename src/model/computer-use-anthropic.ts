/**
 * Anthropic computer use (`computer_20250124` tool, `computer-use-2025-01-24` beta). The conversation is kept here:
 * the task and a screenshot first, each `tool_use` answered with a `tool_result`. Older screenshots are replaced by a
 * short text so each turn sends one image, not all. A reply without tool_use ends the run with its text.
 */
import { withChildSignal } from "../util/abort.js";
import type { ComputerAction, ComputerCall, ComputerUseSession, ComputerUseSetup } from "./computer-use.js";
import { normalizeKey } from "./computer-use.js";
import { anthropicFailureContext, classifyAnthropicError, makeAnthropicSdk } from "./anthropic.js";
import type { ClientPlan } from "./endpoint.js";
import { failureToError, unknownToError } from "./errors.js";
import { elapsedMs, usageFromAnthropic } from "./usage.js";

type Obj = Record<string, any>;

const DEFAULT_MAX_TOKENS = 4096;
const SCROLL_STEP_PX = 100;
const OLD_SCREENSHOT = "[an earlier screenshot, omitted]";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const at = (c: unknown): { x: number; y: number } => (Array.isArray(c) ? { x: num(c[0]), y: num(c[1]) } : { x: 0, y: 0 });

/** A computer tool_use input → the neutral action. */
function mapAnthropicAction(a: Obj): ComputerAction {
  switch (a?.action) {
    case "left_click":
      return { type: "click", ...at(a.coordinate) };
    case "right_click":
      return { type: "click", ...at(a.coordinate), button: "right" };
    case "middle_click":
      return { type: "click", ...at(a.coordinate), button: "middle" };
    case "double_click":
      return { type: "click", ...at(a.coordinate), clickCount: 2 };
    case "triple_click":
      return { type: "click", ...at(a.coordinate), clickCount: 3 };
    case "mouse_move":
      return { type: "move", ...at(a.coordinate) };
    case "left_click_drag":
      return { type: "drag", path: [at(a.start_coordinate), at(a.coordinate)] };
    case "type":
      return { type: "type", text: String(a.text ?? "") };
    case "key":
      return { type: "keypress", keys: String(a.text ?? "").split("+").filter(Boolean).map(normalizeKey) };
    case "scroll": {
      const amount = num(a.scroll_amount) || 3;
      const d = String(a.scroll_direction ?? "down");
      const px = amount * SCROLL_STEP_PX;
      return { type: "scroll", ...at(a.coordinate), scrollX: d === "left" ? -px : d === "right" ? px : 0, scrollY: d === "up" ? -px : d === "down" ? px : 0 };
    }
    case "wait":
      return { type: "wait", ...(typeof a.duration === "number" ? { ms: Math.round(a.duration * 1000) } : {}) };
    case "screenshot":
    case "cursor_position":
      return { type: "screenshot" };
    default:
      return { type: "unsupported", name: String(a?.action ?? "unknown") };
  }
}

/** Replaces the images of earlier user turns (also inside tool_results) by a short text. */
function dropImages(messages: Obj[]): void {
  const strip = (blocks: Obj[]): Obj[] => blocks.map((b) => (b.type === "image" ? { type: "text", text: OLD_SCREENSHOT } : b.type === "tool_result" && Array.isArray(b.content) ? { ...b, content: strip(b.content) } : b));
  for (const m of messages) if (m.role === "user" && Array.isArray(m.content)) m.content = strip(m.content);
}

export function anthropicComputerUse(plan: ClientPlan, setup: ComputerUseSetup): ComputerUseSession {
  const sdk = makeAnthropicSdk(plan);
  const ctx = anthropicFailureContext(plan, sdk);
  const tool = { type: "computer_20250124", name: "computer", display_width_px: setup.display.width, display_height_px: setup.display.height };
  const messages: Obj[] = [];
  /** tool_use ids of the last reply, each needing a tool_result. */
  let pending: string[] = [];

  return {
    async next({ screenshot, results, signal }) {
      const image = { type: "image", source: { type: "base64", media_type: screenshot.mediaType, data: screenshot.data } };
      dropImages(messages);
      if (messages.length === 0) {
        messages.push({ role: "user", content: [{ type: "text", text: setup.instruction }, image] });
      } else if (pending.length === 0) {
        messages.push({ role: "user", content: [{ type: "text", text: "Continue." }, image] });
      } else {
        const byId = new Map(results.map((r) => [r.id, r]));
        const blocks = pending.map((id, i) => {
          const r = byId.get(id) ?? { id, ok: false, error: "not run" };
          const note = r.ok ? [] : [{ type: "text", text: r.error ?? "error" }];
          const content = i === pending.length - 1 ? [...note, image] : r.ok ? [{ type: "text", text: "done" }] : note;
          return { type: "tool_result", tool_use_id: id, content, ...(r.ok ? {} : { is_error: true }) };
        });
        messages.push({ role: "user", content: blocks });
      }
      const body: Obj = {
        model: plan.model,
        max_tokens: plan.defaults.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
        ...(setup.system ? { system: setup.system } : {}),
        messages,
        tools: [tool],
        betas: ["computer-use-2025-01-24"],
        ...(plan.defaults.temperature !== undefined ? { temperature: plan.defaults.temperature } : {}),
      };
      const start = performance.now();
      let msg: Obj;
      try {
        msg = (await withChildSignal(signal, (s) => sdk.beta.messages.create(body as never, s ? { signal: s } : undefined))) as unknown as Obj;
      } catch (e) {
        const f = classifyAnthropicError(e);
        throw f ? failureToError(f, ctx) : unknownToError(e, ctx, signal);
      }
      const ms = elapsedMs(start);
      const content: Obj[] = Array.isArray(msg.content) ? msg.content : [];
      messages.push({ role: "assistant", content });
      const calls: ComputerCall[] = [];
      const texts: string[] = [];
      for (const b of content) {
        if (b.type === "tool_use") calls.push({ id: String(b.id), action: b.name === "computer" ? mapAnthropicAction(b.input) : { type: "unsupported", name: String(b.name) } });
        else if (b.type === "text") texts.push(String(b.text ?? ""));
      }
      pending = calls.map((c) => c.id);
      return { calls, text: texts.join("\n").trim(), usage: usageFromAnthropic(msg.usage, ms), model: String(msg.model ?? plan.model) };
    },
  };
}
