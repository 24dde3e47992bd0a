/**
 * OpenAI computer use over the Responses API (`computer_use_preview`, `environment: "browser"`). The first turn sends
 * the task and a screenshot; later turns chain with `previous_response_id` and answer each `computer_call` with the
 * new screenshot, acknowledging pending safety checks. A reply with no computer_call ends the run with its text.
 */
import { withChildSignal } from "../util/abort.js";
import { LLMResponseError } from "../errors.js";
import type { ComputerAction, ComputerCall, ComputerUseSession, ComputerUseSetup } from "./computer-use.js";
import { normalizeKey } from "./computer-use.js";
import type { ClientPlan } from "./endpoint.js";
import { failureToError, unknownToError } from "./errors.js";
import { classifyOpenAIError, dataUrl, makeSdk, openAIFailureContext } from "./openai.js";
import { elapsedMs, usageFromOpenAI } from "./usage.js";

type Obj = Record<string, any>;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A computer_call's `action` → the neutral action. */
function mapOpenAIAction(a: Obj): ComputerAction {
  switch (a?.type) {
    case "click": {
      if (a.button === "back" || a.button === "forward") return { type: "keypress", keys: ["Alt", a.button === "back" ? "ArrowLeft" : "ArrowRight"] };
      const button = a.button === "right" ? "right" : a.button === "wheel" || a.button === "middle" ? "middle" : "left";
      return { type: "click", x: num(a.x), y: num(a.y), ...(button !== "left" ? { button } : {}) };
    }
    case "double_click":
      return { type: "click", x: num(a.x), y: num(a.y), clickCount: 2 };
    case "move":
      return { type: "move", x: num(a.x), y: num(a.y) };
    case "drag":
      return { type: "drag", path: (Array.isArray(a.path) ? a.path : []).map((p: Obj) => ({ x: num(p?.x), y: num(p?.y) })) };
    case "scroll":
      return { type: "scroll", x: num(a.x), y: num(a.y), scrollX: num(a.scroll_x), scrollY: num(a.scroll_y) };
    case "type":
      return { type: "type", text: String(a.text ?? "") };
    case "keypress":
      return { type: "keypress", keys: (Array.isArray(a.keys) ? a.keys : []).map((k: unknown) => normalizeKey(String(k))) };
    case "wait":
      return { type: "wait" };
    case "screenshot":
      return { type: "screenshot" };
    default:
      return { type: "unsupported", name: String(a?.type ?? "unknown") };
  }
}

export function openAIComputerUse(plan: ClientPlan, setup: ComputerUseSetup): ComputerUseSession {
  const sdk = makeSdk(plan);
  const ctx = openAIFailureContext(plan, sdk);
  const tool = { type: "computer_use_preview", display_width: setup.display.width, display_height: setup.display.height, environment: "browser" };
  let previous: string | undefined;
  /** Safety checks of the calls being answered, acknowledged with their output. */
  let checks = new Map<string, unknown[]>();

  return {
    async next({ screenshot, results, signal }) {
      const image_url = dataUrl(screenshot);
      const input: Obj[] = [];
      if (previous === undefined || results.length === 0) {
        input.push({ role: "user", content: [{ type: "input_text", text: previous === undefined ? setup.instruction : "Continue." }, { type: "input_image", image_url, detail: "auto" }] });
      } else {
        for (const r of results) {
          const ack = checks.get(r.id);
          input.push({ type: "computer_call_output", call_id: r.id, output: { type: "computer_screenshot", image_url }, ...(ack?.length ? { acknowledged_safety_checks: ack } : {}) });
        }
        const errors = results.filter((r) => !r.ok).map((r) => `The action of call ${r.id} failed: ${r.error ?? "error"}`);
        if (errors.length) input.push({ role: "user", content: [{ type: "input_text", text: errors.join("\n") }] });
      }
      const maxOut = plan.defaults.maxOutputTokens;
      const body: Obj = {
        model: plan.model,
        ...(setup.system ? { instructions: setup.system } : {}),
        input,
        tools: [tool],
        truncation: "auto",
        ...(previous ? { previous_response_id: previous } : {}),
        ...(maxOut !== undefined ? { max_output_tokens: maxOut } : {}),
      };
      const start = performance.now();
      let r: Obj;
      try {
        r = (await withChildSignal(signal, (s) => sdk.responses.create(body as never, s ? { signal: s } : undefined))) as unknown as Obj;
      } catch (e) {
        const f = classifyOpenAIError(e);
        throw f ? failureToError(f, ctx) : unknownToError(e, ctx, signal);
      }
      const ms = elapsedMs(start);
      previous = typeof r.id === "string" ? r.id : undefined;
      const calls: ComputerCall[] = [];
      const texts: string[] = [];
      const reasoning: string[] = [];
      checks = new Map();
      for (const item of (r.output ?? []) as Obj[]) {
        if (item.type === "computer_call") {
          const id = String(item.call_id ?? item.id);
          calls.push({ id, action: mapOpenAIAction(item.action) });
          if (Array.isArray(item.pending_safety_checks) && item.pending_safety_checks.length) checks.set(id, item.pending_safety_checks);
        } else if (item.type === "message") {
          for (const part of item.content ?? []) {
            if (part.type === "output_text") texts.push(String(part.text ?? ""));
            if (part.type === "refusal") throw new LLMResponseError(`${plan.modelName}: the model refused: ${String(part.refusal).slice(0, 200)}`);
          }
        } else if (item.type === "reasoning") {
          for (const s of item.summary ?? []) if (typeof s?.text === "string") reasoning.push(s.text);
        }
      }
      const text = [...texts, ...(texts.length ? [] : reasoning)].join("\n").trim();
      return { calls, text, usage: usageFromOpenAI(r.usage, ms), model: String(r.model ?? plan.model) };
    },
  };
}
