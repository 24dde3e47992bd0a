/**
 * Real user input through the Input domain. Events always go to the page's main session: Chrome routes
 * them by coordinates (mouse) or focus (keyboard) into the right frame, OOPIFs included.
 */
import type { CdpSession } from "./cdp/connection.js";
import { ServiceInvalidArgumentError } from "../errors.js";
import { abortError, withDetail } from "../util/abort.js";

interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

const NAMED: Record<string, KeyDef> = {
  Enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  Tab: { key: "Tab", code: "Tab", keyCode: 9 },
  Escape: { key: "Escape", code: "Escape", keyCode: 27 },
  Backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  Delete: { key: "Delete", code: "Delete", keyCode: 46 },
  Space: { key: " ", code: "Space", keyCode: 32, text: " " },
  ArrowUp: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  ArrowDown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  ArrowLeft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  ArrowRight: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  Home: { key: "Home", code: "Home", keyCode: 36 },
  End: { key: "End", code: "End", keyCode: 35 },
  PageUp: { key: "PageUp", code: "PageUp", keyCode: 33 },
  PageDown: { key: "PageDown", code: "PageDown", keyCode: 34 },
  Shift: { key: "Shift", code: "ShiftLeft", keyCode: 16 },
  Control: { key: "Control", code: "ControlLeft", keyCode: 17 },
  Alt: { key: "Alt", code: "AltLeft", keyCode: 18 },
  Meta: { key: "Meta", code: "MetaLeft", keyCode: 91 },
};
const ALIASES: Record<string, string> = { Return: "Enter", Esc: "Escape", Ctrl: "Control", Cmd: "Meta", Command: "Meta", Up: "ArrowUp", Down: "ArrowDown", Left: "ArrowLeft", Right: "ArrowRight", " ": "Space", Option: "Alt" };
const MODIFIER_BITS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

/** The Input domain's modifier bit of a key name (`Shift`, `Ctrl`, …), 0 for any other key. */
export function modifierBit(name: string): number {
  try {
    return MODIFIER_BITS[keyDef(name).key] ?? 0;
  } catch {
    return 0;
  }
}

function keyDef(name: string): KeyDef {
  const canonical = ALIASES[name] ?? (name.length > 1 ? name[0]!.toUpperCase() + name.slice(1) : name);
  const named = NAMED[canonical] ?? NAMED[name];
  if (named) return named;
  if (/^F([1-9]|1[0-2])$/.test(canonical)) return { key: canonical, code: canonical, keyCode: 111 + Number(canonical.slice(1)) };
  if ([...name].length === 1) {
    const upper = name.toUpperCase();
    const isLetter = /[a-z]/i.test(name);
    const isDigit = /[0-9]/.test(name);
    return { key: name, code: isLetter ? `Key${upper}` : isDigit ? `Digit${name}` : "", keyCode: isLetter || isDigit ? upper.charCodeAt(0) : 0, text: name };
  }
  throw new ServiceInvalidArgumentError(`unknown key "${name}"`, { hint: "use names like Enter, Tab, Escape, ArrowDown, a, Control+A" });
}

export interface Point {
  x: number;
  y: number;
}

export class Input {
  private mouse: Point = { x: 0, y: 0 };

  constructor(
    private readonly session: CdpSession,
    /** Sees text right before it is typed or inserted (the page remembers what goes into a password field). */
    private readonly beforeText?: (text: string) => Promise<void>,
  ) {}

  /** `held`: buttons already down (a drag across calls): the moves carry them, as a real drag's do. */
  async move(to: Point, steps = 1, held?: { buttons: number; modifiers?: number }): Promise<void> {
    const from = this.mouse;
    const pressed = held?.buttons ? { buttons: held.buttons, button: held.buttons & 1 ? "left" : held.buttons & 2 ? "right" : "middle" } as const : {};
    const modifiers = held?.modifiers ? { modifiers: held.modifiers } : {};
    for (let i = 1; i <= steps; i++) {
      const x = from.x + ((to.x - from.x) * i) / steps;
      const y = from.y + ((to.y - from.y) * i) / steps;
      await this.session.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y, ...pressed, ...modifiers });
    }
    this.mouse = to;
  }

  async click(at: Point, options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}): Promise<void> {
    await this.move(at);
    await this.buttons(at, options);
  }

  /** Presses and releases the button where the pointer already is (after move()). */
  async buttons(at: Point, options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}): Promise<void> {
    const button = options.button ?? "left";
    const count = options.clickCount ?? 1;
    for (let i = 1; i <= count; i++) {
      // Sent together (the Input domain keeps their order): the less time between down and up, the less the
      // page can move in between.
      await Promise.all([
        this.session.send("Input.dispatchMouseEvent", { type: "mousePressed", x: at.x, y: at.y, button, clickCount: i }),
        this.session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x: at.x, y: at.y, button, clickCount: i }),
      ]);
    }
  }

  /**
   * Press at `from`, travel, release at the target. The target point is asked for only after the press:
   * measuring it may scroll the page, which would move the source out from under a point taken earlier.
   */
  async drag(from: Point, target: () => Promise<Point>): Promise<void> {
    await this.move(from);
    await this.session.send("Input.dispatchMouseEvent", { type: "mousePressed", x: from.x, y: from.y, button: "left", clickCount: 1 });
    // Intermediate moves: pages (and HTML5 drag-and-drop) need to see the pointer travel.
    await this.session.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: from.x + 5, y: from.y + 5, button: "left", buttons: 1 });
    let to: Point;
    try {
      to = await target();
    } catch (e) {
      // No drop target: let go where the drag started rather than leave the button held down.
      await this.session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x: from.x, y: from.y, button: "left", clickCount: 1 }).catch(() => {});
      this.mouse = from;
      throw e;
    }
    const steps = 5;
    for (let i = 1; i <= steps; i++) {
      const x = from.x + ((to.x - from.x) * i) / steps;
      const y = from.y + ((to.y - from.y) * i) / steps;
      await this.session.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y, button: "left", buttons: 1 });
    }
    await this.session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x: to.x, y: to.y, button: "left", clickCount: 1 });
    this.mouse = to;
  }

  /** Where the pointer is (as this Input last moved it, or as told by `placePointer`). */
  get pointer(): Point {
    return this.mouse;
  }

  /** Tells this Input where the pointer already is (a move an earlier process made), without moving it. */
  placePointer(at: Point): void {
    this.mouse = at;
  }

  /**
   * One button event where the pointer is: `down` or `up` alone (a press held across calls). `held`: the
   * buttons down after this event (the DOM `buttons` bit mask); `modifiers`: the Input domain's bits.
   */
  async button(type: "down" | "up", button: "left" | "right" | "middle", held: number, modifiers = 0): Promise<void> {
    const at = this.mouse;
    await this.session.send("Input.dispatchMouseEvent", { type: type === "down" ? "mousePressed" : "mouseReleased", x: at.x, y: at.y, button, buttons: held, clickCount: 1, modifiers });
  }

  /** One key going down (typing its character when it has one and no Ctrl/Alt/Meta is held) or up. */
  async keyEvent(type: "down" | "up", name: string, modifiers = 0): Promise<void> {
    const d = keyDef(name === "+" ? "+" : name);
    await this.key(type === "down" ? "keyDown" : "keyUp", modifiers & ~8 ? { ...d, text: undefined } : d, modifiers);
  }

  async wheel(at: Point, deltaX: number, deltaY: number): Promise<void> {
    await this.session.send("Input.dispatchMouseEvent", { type: "mouseWheel", x: at.x, y: at.y, deltaX, deltaY });
  }

  /** Presses a key or a combination such as `Control+A` or `Shift+Tab`. */
  async press(combo: string): Promise<void> {
    const parts = combo === "+" ? ["+"] : combo.split("+").filter(Boolean);
    if (parts.length === 0) throw new ServiceInvalidArgumentError("empty key name");
    const defs = parts.map(keyDef);
    let modifiers = 0;
    for (const d of defs.slice(0, -1)) {
      modifiers |= MODIFIER_BITS[d.key] ?? 0;
      await this.key("keyDown", d, modifiers);
    }
    const main = defs[defs.length - 1]!;
    const withText = modifiers & ~8 ? { ...main, text: undefined } : main; // Ctrl/Alt/Meta combos type nothing
    await this.key("keyDown", withText, modifiers);
    await this.key("keyUp", main, modifiers);
    for (const d of defs.slice(0, -1).reverse()) {
      modifiers &= ~(MODIFIER_BITS[d.key] ?? 0);
      await this.key("keyUp", d, modifiers);
    }
  }

  /**
   * Types text key by key (keydown/keypress/input/keyup per character). An abort stops it between two keys:
   * the error says how many characters went in.
   */
  async type(text: string, signal?: AbortSignal): Promise<void> {
    await this.beforeText?.(text);
    const chars = [...text];
    let typed = 0;
    for (const ch of chars) {
      if (signal?.aborted) throw withDetail(abortError(signal), `typed ${typed} of ${chars.length} characters`);
      typed++;
      if (ch === "\n") {
        await this.press("Enter");
        continue;
      }
      const d = NAMED[ch] ?? keyDef(ch);
      await this.key("keyDown", { ...d, text: ch }, 0);
      await this.key("keyUp", d, 0);
    }
  }

  /** Inserts text as one input event, like an IME or a paste. */
  async insertText(text: string): Promise<void> {
    await this.beforeText?.(text);
    await this.session.send("Input.insertText", { text });
  }

  private async key(type: "keyDown" | "keyUp", d: KeyDef, modifiers: number): Promise<void> {
    const text = type === "keyDown" ? d.text : undefined;
    await this.session.send("Input.dispatchKeyEvent", {
      type: text ? "keyDown" : type === "keyDown" ? "rawKeyDown" : "keyUp",
      key: d.key,
      code: d.code,
      windowsVirtualKeyCode: d.keyCode,
      modifiers,
      ...(text ? { text, unmodifiedText: text } : {}),
    });
  }
}
