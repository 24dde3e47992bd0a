/**
 * Low-level input on the selected tab, with no element and no actionability check: `svc keyboard …` to whatever has
 * focus, `svc mouse …` at viewport CSS px. The pointer's place and held buttons and modifiers outlive the command
 * (the session's input state file), so `mouse down`, `move`, `up` in three commands is one drag, and `keyboard down
 * Shift` shift-clicks until `keyboard up Shift`.
 */
import type { Page } from "../../src/index.js";
import { type InputState, ServiceInvalidArgumentError, isCloud, sessionInputStore } from "../../src/base.js";
import { modifierBit } from "../../src/internal.js";
import { numberReader } from "../core/numbers.js";
import type { GlobalOptions, Output } from "../core/output.js";
import { stateRoot, withSession } from "../core/runtime.js";

const MAX_TEXT_CHARS = 10_000;
/** Coordinates and wheel deltas are CSS px; anything beyond this is a typo, not a page. */
const MAX_PX = 100_000;
const BUTTONS = { left: 1, right: 2, middle: 4 } as const;
type Button = keyof typeof BUTTONS;

type Step = (page: Page, state: InputState) => Promise<{ done: string; data: Record<string, unknown> }>;

function needOne(cmd: string, args: readonly string[], what: string, example: string): string {
  const v = args[0];
  if (v === undefined || v === "") throw new ServiceInvalidArgumentError(`${cmd}: ${what} is missing`, { hint: example });
  if (args.length > 1) throw new ServiceInvalidArgumentError(`${cmd}: unexpected argument "${args[1]}"`, { hint: "quote a value that has spaces" });
  return v;
}

function px(cmd: string, name: string, raw: string | undefined, example: string): number {
  return numberReader(`${cmd}: ${name}`, { min: -MAX_PX, max: MAX_PX, unit: "CSS px" }, example)(raw);
}

function button(cmd: string, args: readonly string[]): Button {
  if (args.length > 1) throw new ServiceInvalidArgumentError(`${cmd}: unexpected argument "${args[1]}"`);
  const b = (args[0] ?? "left").toLowerCase();
  if (!Object.hasOwn(BUTTONS, b)) throw new ServiceInvalidArgumentError(`${cmd}: unknown button "${args[0]}"`, { hint: "left, right or middle" });
  return b as Button;
}

function keyboardStep(action: string, args: readonly string[]): Step {
  switch (action) {
    case "type": {
      const text = needOne("keyboard type", args, "the text", 'svc keyboard type "hello"');
      if (text.length > MAX_TEXT_CHARS) throw new ServiceInvalidArgumentError(`keyboard type: the text is longer than ${MAX_TEXT_CHARS} characters`);
      // What was typed stays out of the output (it may be a secret).
      return async (page) => (await page.input.type(text), { done: `typed ${[...text].length} characters`, data: { characters: [...text].length } });
    }
    case "press": {
      const key = needOne("keyboard press", args, "the key", "svc keyboard press Control+A");
      return async (page) => (await page.input.press(key), { done: `pressed ${key}`, data: { key } });
    }
    case "down":
    case "up": {
      const key = needOne(`keyboard ${action}`, args, "the key", `svc keyboard ${action} Shift`);
      if (key.includes("+") && key !== "+") throw new ServiceInvalidArgumentError(`keyboard ${action}: one key, not a combination ("${key}")`, { hint: "svc keyboard down Shift" });
      return async (page, state) => {
        const bit = modifierBit(key);
        const modifiers = action === "down" ? state.modifiers | bit : state.modifiers & ~bit;
        await page.input.keyEvent(action, key, action === "down" ? modifiers : state.modifiers);
        state.modifiers = modifiers;
        return { done: `key ${action}: ${key}`, data: { key } };
      };
    }
    default:
      throw new ServiceInvalidArgumentError(`keyboard: unknown action "${action}"`, { hint: "type TEXT, press KEY, down KEY or up KEY" });
  }
}

function mouseStep(action: string, args: readonly string[]): Step {
  switch (action) {
    case "move":
    case "wheel": {
      const [a, b] = action === "move" ? ["X", "Y"] : ["DX", "DY"];
      const example = action === "move" ? "svc mouse move 120 80" : "svc mouse wheel 0 400";
      if (args.length > 2) throw new ServiceInvalidArgumentError(`mouse ${action}: unexpected argument "${args[2]}"`, { hint: example });
      const x = px(`mouse ${action}`, a!, args[0], example);
      const y = px(`mouse ${action}`, b!, args[1], example);
      if (action === "move" && (x < 0 || y < 0)) throw new ServiceInvalidArgumentError(`mouse move: X and Y must not be negative, got ${x} ${y}`, { hint: example });
      if (action === "move") {
        return async (page, state) => {
          await page.input.move({ x, y }, 1, { buttons: state.buttons, modifiers: state.modifiers });
          Object.assign(state, { x, y });
          return { done: `pointer at ${x}, ${y}`, data: {} };
        };
      }
      return async (page, state) => (await page.input.wheel({ x: state.x, y: state.y }, x, y), { done: `wheel ${x}, ${y} at ${state.x}, ${state.y}`, data: { deltaX: x, deltaY: y } });
    }
    case "down":
    case "up": {
      const b = button(`mouse ${action}`, args);
      return async (page, state) => {
        const held = action === "down" ? state.buttons | BUTTONS[b] : state.buttons & ~BUTTONS[b];
        await page.input.button(action, b, held, state.modifiers);
        state.buttons = held;
        return { done: `${b} button ${action} at ${state.x}, ${state.y}`, data: { button: b } };
      };
    }
    default:
      throw new ServiceInvalidArgumentError(`mouse: unknown action "${action}"`, { hint: "move X Y, down [button], up [button] or wheel DX DY" });
  }
}

async function run(g: GlobalOptions, device: "keyboard" | "mouse", action: string, step: Step): Promise<void> {
  await withSession(g, async ({ svc, out, session }) => {
    const page: Page = svc.page;
    // A cloud session keeps no state files here: its pointer starts at 0,0 each command.
    const store = session && !isCloud(session) ? sessionInputStore(session.id, stateRoot()) : undefined;
    const state = store?.load(page.targetId) ?? { x: 0, y: 0, buttons: 0, modifiers: 0 };
    page.input.placePointer({ x: state.x, y: state.y });
    let done: Awaited<ReturnType<Step>>;
    try {
      done = await step(page, state);
    } finally {
      store?.save(page.targetId, state);
    }
    report(out, session?.id, device, action, state, done);
  });
}

function report(out: Output, session: string | undefined, device: string, action: string, state: InputState, done: Awaited<ReturnType<Step>>): void {
  const pointer = { x: state.x, y: state.y };
  out.result({ session, device, action, ...done.data, pointer, buttons: state.buttons, modifiers: state.modifiers }, () => done.done);
}

export async function keyboard(g: GlobalOptions, action: string, args: readonly string[]): Promise<void> {
  await run(g, "keyboard", action, keyboardStep(action, args));
}

export async function mouse(g: GlobalOptions, action: string, args: readonly string[]): Promise<void> {
  await run(g, "mouse", action, mouseStep(action, args));
}
