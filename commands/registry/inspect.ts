/**
 * Inspecting the page and low-level input on the session's selected tab: `is`, `scrollintoview`, `keyboard`,
 * `mouse` (commands/page/inspect.ts, scroll.ts, input-low.ts). All hosted: they drive the session's page and never
 * ask a model. `get html|count|box|styles` is `get`'s (page.ts); `find` is a capability (src/capabilities/find.ts).
 */
import { command } from "./types.js";

export const INSPECT_COMMANDS = [
  command({
    name: "is",
    args: "<state> <target>",
    usage: "visible|enabled|checked <ref|selector>",
    description: "print true or false (exit 0 either way): is the element visible, enabled, checked; a target that names no element fails (exit 6)",
    examples: ["svc is visible e4", 'svc --json is checked "#terms"'],
    hosted: true,
    run: async (c, [state, target]) => (await import("../page/inspect.js")).is(c.globals, state as string, target as string | undefined),
  }),
  command({
    name: "scrollintoview",
    args: "<target>",
    description: "scroll the element to the middle of the viewport (every scroller on the way) and print where it is now",
    examples: ["svc scrollintoview e12", 'svc scrollintoview "#footer"'],
    hosted: true,
    run: async (c, [target]) => (await import("../page/scroll.js")).scrollIntoView(c.globals, target as string | undefined),
  }),
  command({
    name: "keyboard",
    args: "<action> [args...]",
    usage: "type TEXT | press KEY | down KEY | up KEY",
    description: "low-level keys to whatever has focus: type text, press a key or combination (Control+A), hold a key down or let it up (a held Shift makes later clicks shift-clicks)",
    examples: ['svc keyboard type "hello"', "svc keyboard press Control+A", "svc keyboard down Shift"],
    hosted: true,
    run: async (c, [action, args]) => (await import("../page/input-low.js")).keyboard(c.globals, action as string, (args as string[] | undefined) ?? []),
  }),
  command({
    name: "mouse",
    args: "<action> [args...]",
    usage: "move X Y | down [left|right|middle] | up [left|right|middle] | wheel DX DY",
    description: "low-level mouse at the pointer (viewport CSS px): move it, press or release a button, turn the wheel; the pointer and held buttons carry over to the next command",
    examples: ["svc mouse move 120 80", "svc mouse down", "svc mouse wheel 0 400"],
    hosted: true,
    run: async (c, [action, args]) => (await import("../page/input-low.js")).mouse(c.globals, action as string, (args as string[] | undefined) ?? []),
  }),
];
