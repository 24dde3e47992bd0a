/** Literal instructions (src/operations/literal.ts): the grammar, and the strict match against an outline's refs. */
import { describe, expect, it } from "vitest";
import { parseLiteral, resolveLiteral } from "../../src/operations/literal.js";
import type { RefTarget } from "../../src/snapshot/index.js";

describe("parseLiteral", () => {
  it.each([
    ['click the "Submit" button', { method: "click", name: "Submit", roles: ["button"], arguments: [] }],
    ["Click the Submit button.", { method: "click", name: "Submit", roles: ["button"], arguments: [] }],
    ['click on the link "More information..."', { method: "click", name: "More information...", roles: ["link"], arguments: [] }],
    ['click "Send"', { method: "click", name: "Send", arguments: [] }],
    ["double-click the “Row 3” button", { method: "doubleClick", name: "Row 3", roles: ["button"], arguments: [] }],
    ["hover over the Help link", { method: "hover", name: "Help", roles: ["link"], arguments: [] }],
    ['type "Ada" into the Full name field', { method: "type", name: "Full name", roles: ["textbox", "searchbox", "spinbutton"], arguments: ["Ada"] }],
    ["type %email% in the 'Email' text box", { method: "type", name: "Email", arguments: ["%email%"] }],
    ['enter "Ada" into the Full name field', { method: "fill", name: "Full name", arguments: ["Ada"] }],
    ['fill "Full name" with "Ada"', { method: "fill", name: "Full name", arguments: ["Ada"] }],
    ['fill in the Full name field with "Ada Lovelace"', { method: "fill", name: "Full name", arguments: ["Ada Lovelace"] }],
    ['select "Large" from the Size list', { method: "selectOptionFromDropdown", name: "Size", roles: ["combobox", "listbox"], arguments: ["Large"] }],
    ['choose "Express" from the Delivery select box', { method: "selectOptionFromDropdown", name: "Delivery", roles: ["combobox", "listbox"], arguments: ["Express"] }],
    ['check the "Remember me" checkbox', { method: "check", name: "Remember me", roles: ["checkbox", "menuitemcheckbox"], arguments: [] }],
    ["uncheck the Send me news check box", { method: "uncheck", name: "Send me news", arguments: [] }],
    ["check the Express radio button", { method: "check", name: "Express", roles: ["radio"], arguments: [] }],
    ["press Enter", { method: "press", arguments: ["Enter"] }],
    ["press the escape key", { method: "press", arguments: ["Escape"] }],
  ])("%s", (instruction, expected) => {
    expect(parseLiteral(instruction)).toMatchObject(expected);
  });

  it.each([
    "click the Submit button and then the Cancel button", // no role word at the end: it is the name
    "click Submit", // unquoted with no role word
    "click the button", // no name
    "click the first button",
    "type Ada into the Full name field", // an unquoted value
    'type "Ada" into the Submit button', // a button is not typed into
    'select "Large" from the Size field', // a field has no options
    'check the "Submit" button',
    "check that the page says Welcome",
    "press the Submit button",
    "press Control+A",
    "go to the pricing page",
    "log in as Ada",
    'click the "Submit button',
  ])("not literal: %s", (instruction) => {
    const step = parseLiteral(instruction);
    // Some still parse (their name is then matched exactly, and fits nothing real); these must not.
    if (instruction === "click the Submit button and then the Cancel button") expect(step?.name).toBe("Submit button and then the Cancel");
    else expect(step).toBeUndefined();
  });
});

const ref = (n: number, role: string, name: string, extra: Partial<RefTarget> = {}): RefTarget => ({ ref: `e${n}`, frameId: "f", backendNodeId: n, role, name, ...extra });

describe("resolveLiteral", () => {
  const refs = [
    ref(1, "textbox", "Full name"),
    ref(2, "button", "Submit"),
    ref(3, "link", "Submit"),
    ref(4, "button", "Next"),
    ref(5, "button", "next"),
    ref(6, "button", "Settings", { derived: true }),
    ref(7, "checkbox", "Remember  me"),
    ref(8, "button", "Submit order"),
  ];

  it("finds the one element of that role and exact name (case and spacing aside)", () => {
    expect(resolveLiteral(refs, parseLiteral('click the "submit" button')!)?.ref).toBe("e2");
    expect(resolveLiteral(refs, parseLiteral("click the Submit link")!)?.ref).toBe("e3");
    expect(resolveLiteral(refs, parseLiteral('type "Ada" into the full  name field')!)?.ref).toBe("e1");
    expect(resolveLiteral(refs, parseLiteral('check the "Remember me" checkbox')!)?.ref).toBe("e7");
  });

  it("finds nothing when two fit, none fits, the name is only part of one, or the name is svc's own", () => {
    expect(resolveLiteral(refs, parseLiteral('click "Submit"')!)).toBeUndefined(); // a button and a link
    expect(resolveLiteral(refs, parseLiteral("click the Next button")!)).toBeUndefined(); // two, by case
    expect(resolveLiteral(refs, parseLiteral("click the Cancel button")!)).toBeUndefined();
    expect(resolveLiteral(refs, parseLiteral("click the order button")!)).toBeUndefined();
    expect(resolveLiteral(refs, parseLiteral("click the Settings button")!)).toBeUndefined();
    expect(resolveLiteral(refs, parseLiteral('type "x" into the Submit field')!)).toBeUndefined();
  });

  it("a key press names no element", () => {
    expect(resolveLiteral(refs, parseLiteral("press Enter")!)).toBeUndefined();
  });
});
