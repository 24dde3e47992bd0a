/**
 * The verbs on a ref or selector (commands/verbs.ts turns each into one Action): declared once here with
 * their arguments and examples; each is hosted, and the MCP tool of the same capability is named.
 */
import { type CommandDecl, command, value } from "./types.js";

interface VerbDecl {
  name: string;
  args: string;
  description: string;
  examples: readonly string[];
  mcpTool?: string;
}

const VERB_DECLS: readonly VerbDecl[] = [
  { name: "click", args: "<target>", description: "click the element (a ref from `svc snapshot`, or a selector)", examples: ["svc click e3", 'svc click "#submit"'], mcpTool: "click" },
  { name: "dblclick", args: "<target>", description: "double-click the element", examples: ["svc dblclick e7"], mcpTool: "click" },
  { name: "hover", args: "<target>", description: "move the pointer onto the element", examples: ["svc hover e4"], mcpTool: "hover" },
  { name: "focus", args: "<target>", description: "focus the element", examples: ["svc focus e2"] },
  { name: "fill", args: "<target> <value>", description: "replace the field's value", examples: ['svc fill e1 "Ada Lovelace"'], mcpTool: "fill" },
  { name: "type", args: "<target> <text>", description: "type key by key into the element", examples: ['svc type e1 " Lovelace"'], mcpTool: "type" },
  {
    name: "press",
    args: "<target-or-key> [key]",
    description: "press a key (Enter, Tab, Control+A…): svc press e3 Enter, or svc press Enter on the focused element",
    examples: ["svc press Enter", "svc press e1 Tab"],
    mcpTool: "press",
  },
  { name: "select", args: "<target> <options...>", description: "choose an option of a <select> by its text or value (several for a <select multiple>)", examples: ["svc select e6 Norway", "svc select e7 Red Blue"], mcpTool: "select" },
  { name: "check", args: "<target>", description: "check a checkbox or radio button (nothing if already checked)", examples: ["svc check e5"], mcpTool: "check" },
  { name: "uncheck", args: "<target>", description: "uncheck a checkbox (nothing if already unchecked)", examples: ["svc uncheck e5"], mcpTool: "check" },
  { name: "scroll", args: "[target] [where]", description: "scroll the page or the element: down (default), up, top, bottom, N%, left, right (one visible width) or Npx (down; -Npx up)", examples: ["svc scroll down", "svc scroll e9 bottom", "svc scroll right", "svc scroll 300px"], mcpTool: "scroll" },
  { name: "drag", args: "<from> <to>", description: "drag one element onto another", examples: ["svc drag e3 e8"] },
  { name: "upload", args: "<target> <files...>", description: "set the files of an <input type=file>", examples: ["svc upload e5 ./cv.pdf"] },
];

export const VERB_COMMANDS: readonly CommandDecl[] = VERB_DECLS.map((v) =>
  command({
    ...v,
    options: { timeout: value("--timeout <ms>", "give up after this many milliseconds") },
    hosted: true,
    run: async (c, _a, o) => (await import("../verbs.js")).runVerb(c.globals, c.name, c.rawArgs, o),
  }),
);
