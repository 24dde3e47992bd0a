/**
 * Literal instructions: an act naming its element by exact accessible name (and role) needs no model, e.g. `click the
 * "Submit" button`, `press Enter`. The grammar is closed and the match strict: anything else, or a name fitting no
 * element or several, goes to the model, since a false match is worse than a model call. Pure; the page side is
 * act-literal.ts.
 */
import type { RefTarget } from "../snapshot/index.js";
import type { ActionMethod } from "./action.js";

/** A parsed literal instruction: the method, the element it names, and the argument (a value or a key). */
export interface LiteralStep {
  method: ActionMethod;
  /** The element's name as written (exact accessible name; a field's label); undefined for a key press. */
  name?: string;
  /** The roles the element may have: what the instruction's role word allows and the method can act on. */
  roles?: readonly string[];
  /** `%name%` kept as written; substituted right before the browser gets it. */
  arguments: string[];
}

const FIELD = ["textbox", "searchbox", "spinbutton"];
const CHECKABLE = ["checkbox", "radio", "switch", "menuitemcheckbox"];
const LIST = ["combobox", "listbox"];

/** A role word → the outline roles it names. */
const ROLE_WORD_TABLE: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["radio button", ["radio"]],
  ["check box", ["checkbox", "menuitemcheckbox"]],
  ["checkbox", ["checkbox", "menuitemcheckbox"]],
  ["text field", FIELD],
  ["text box", FIELD],
  ["textbox", FIELD],
  ["text area", ["textbox"]],
  ["textarea", ["textbox"]],
  ["search box", ["searchbox", "textbox"]],
  ["search field", ["searchbox", "textbox"]],
  ["input", FIELD],
  ["field", FIELD],
  ["box", [...FIELD, "checkbox"]],
  ["drop-down list", LIST],
  ["dropdown list", LIST],
  ["drop-down", LIST],
  ["dropdown", LIST],
  ["drop down", LIST],
  ["select box", LIST],
  ["select", LIST],
  ["combobox", LIST],
  ["combo box", LIST],
  ["list", LIST],
  ["menu item", ["menuitem", "menuitemcheckbox", "menuitemradio"]],
  ["menuitem", ["menuitem", "menuitemcheckbox", "menuitemradio"]],
  ["button", ["button"]],
  ["link", ["link"]],
  ["tab", ["tab"]],
  ["switch", ["switch"]],
  ["toggle", ["switch"]],
  ["radio", ["radio"]],
  ["option", ["option"]],
];
/** Longer phrases first: `radio button` is not `button`, `select box` not `box`. */
const ROLE_WORDS = [...ROLE_WORD_TABLE].sort((a, b) => b[0].length - a[0].length);

/** The roles each method may act on (a role word outside them makes the instruction not literal). */
const CLICKABLE = ["button", "link", "tab", "option", "menuitem", "menuitemcheckbox", "menuitemradio", ...CHECKABLE, ...FIELD, ...LIST];
const METHOD_ROLES: Partial<Record<ActionMethod, readonly string[]>> = {
  click: CLICKABLE,
  doubleClick: CLICKABLE,
  hover: CLICKABLE,
  type: FIELD,
  fill: FIELD,
  selectOptionFromDropdown: LIST,
  check: CHECKABLE,
  uncheck: CHECKABLE,
};

/** Keys `press KEY` accepts, by their lower-case spelling. */
const KEYS = new Map(
  ["Enter", "Tab", "Escape", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"].map((k) => [k.toLowerCase(), k]),
);
KEYS.set("esc", "Escape").set("return", "Enter");

const QUOTED = String.raw`"([^"]+)"|'([^']+)'|“([^”]+)”|‘([^’]+)’`;
/** A value: quoted, or one `%variable%`. */
const VALUE = String.raw`(?:${QUOTED}|(%[A-Za-z_][A-Za-z0-9_.-]*%))`;
const THE = String.raw`(?:the\s+)?`;

/** What a verb's sentence looks like: the target (element) and value groups are read by their names. */
interface Form {
  re: RegExp;
  method: (verb: string) => ActionMethod;
}

const f = (src: string, method: (verb: string) => ActionMethod): Form => ({ re: new RegExp(`^${src}$`, "iu"), method });
const FORMS: Form[] = [
  f(String.raw`(double[- ]?click|click|tap|hover(?:\s+over)?)\s+(?:on\s+)?${THE}(?<target>.+)`, (v) => (/^double/i.test(v) ? "doubleClick" : /^hover/i.test(v) ? "hover" : "click")),
  f(String.raw`(type)\s+(?<value>${VALUE})\s+(?:in|into)\s+${THE}(?<target>.+)`, () => "type"),
  f(String.raw`(enter|input)\s+(?<value>${VALUE})\s+(?:in|into)\s+${THE}(?<target>.+)`, () => "fill"),
  f(String.raw`(fill)\s+(?:in\s+)?${THE}(?<target>.+?)\s+with\s+(?<value>${VALUE})`, () => "fill"),
  f(String.raw`(select|choose|pick)\s+(?<value>${VALUE})\s+(?:from|in)\s+${THE}(?<target>.+)`, () => "selectOptionFromDropdown"),
  f(String.raw`(check|tick|uncheck|untick)\s+${THE}(?<target>.+)`, (v) => (/^un/i.test(v) ? "uncheck" : "check")),
];

/** An unquoted "name" that says which one rather than naming it (`the first button`): for the model. */
const POSITIONAL = /^(?:first|second|third|fourth|fifth|last|other|another|same|top|bottom|left|right|middle|above|below|\d+(?:st|nd|rd|th)?)$/i;

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** The text of a quoted string (any of the quote pairs), else undefined. */
function unquote(s: string): string | undefined {
  const m = new RegExp(`^(?:${QUOTED})$`, "u").exec(s.trim());
  return m ? (m[1] ?? m[2] ?? m[3] ?? m[4]) : undefined;
}

/**
 * The element part: `"Name" [role]`, `role "Name"`, or `Name role` (unquoted only with a role word, and no
 * quote inside). Returns the name and the roles the word allows (undefined: no role word given).
 */
function parseTarget(text: string): { name: string; roles?: readonly string[] } | undefined {
  const t = text.trim();
  const whole = unquote(t);
  if (whole !== undefined) return { name: whole };
  for (const [word, roles] of ROLE_WORDS) {
    const lw = word.replace(/ /g, "\\s+");
    const after = new RegExp(`^(.+?)\\s+${lw}$`, "iu").exec(t);
    const before = new RegExp(`^${lw}\\s+(.+)$`, "iu").exec(t);
    if (after) {
      const q = unquote(after[1]!);
      if (q !== undefined) return { name: q, roles };
      if (!/["'“”‘’%]/.test(after[1]!) && !POSITIONAL.test(after[1]!)) return { name: after[1]!, roles };
      return undefined;
    }
    if (before) {
      const q = unquote(before[1]!);
      return q !== undefined ? { name: q, roles } : undefined;
    }
  }
  return undefined;
}

/** The instruction as a literal step, or undefined when it is not of that form (then the model decides). */
export function parseLiteral(instruction: string): LiteralStep | undefined {
  const text = instruction.replace(/\s+/g, " ").trim().replace(/\.$/, "");
  if (text.length > 500) return undefined;
  const key = /^press\s+(?:the\s+)?([A-Za-z]+)(?:\s+key)?$/iu.exec(text);
  if (key) {
    const k = KEYS.get(key[1]!.toLowerCase());
    return k ? { method: "press", arguments: [k] } : undefined;
  }
  for (const form of FORMS) {
    const m = form.re.exec(text);
    if (!m?.groups) continue;
    const method = form.method(m[1]!);
    const target = parseTarget(m.groups.target!);
    if (!target || !target.name.trim()) return undefined;
    const allowed = METHOD_ROLES[method]!;
    const roles = target.roles ? target.roles.filter((r) => allowed.includes(r)) : allowed;
    if (!roles.length) return undefined;
    const rawValue = m.groups.value;
    const args = rawValue === undefined ? [] : [unquote(rawValue) ?? rawValue];
    return { method, name: target.name.trim(), roles, arguments: args };
  }
  return undefined;
}

/**
 * The one element of the outline the step names: same role (one the step allows) and the same accessible
 * name, exactly (case and spacing aside). A name svc derived for an icon-only control is not an accessible
 * name. None or several: undefined.
 */
export function resolveLiteral(refs: Iterable<RefTarget>, step: LiteralStep): RefTarget | undefined {
  if (step.name === undefined || !step.roles) return undefined;
  const want = norm(step.name);
  const hits: RefTarget[] = [];
  for (const t of refs) {
    if (t.derived || !step.roles.includes(t.role) || norm(t.name) !== want) continue;
    hits.push(t);
    if (hits.length > 1) return undefined;
  }
  return hits[0];
}
