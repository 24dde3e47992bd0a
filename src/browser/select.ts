/**
 * Choosing options of a native <select> by value or visible text, as Playwright's selectOption does: every option
 * given is selected (others deselected on a multiple select), then `input` and `change` bubble once. The select is
 * not focused, so a plugin that opens its own list on focus does not leave it open. The result is what the select
 * holds afterwards: a page that undid the choice fails.
 */
import { actionable } from "./actionability.js";
import { callOn, type ElementHost, held, opts, type WaitOptions } from "./element-call.js";
import type { ElementHandle } from "./resolve.js";
import { ServiceClickError, ServiceElementNotFoundError, ServiceInvalidArgumentError } from "../errors.js";

/** What the page-side choice found: the indexes chosen, or why there are none. */
type Choice = { ok: true; indexes: number[] } | { ok: false; name: string; missing: string[]; options: string[] } | { ok: false; name: string; single: true };

/** An option the select holds: its value and visible text. */
export interface SelectedOption {
  value: string;
  text: string;
}

/** The options the select holds afterwards, in the page's order. */
export function selectOption(host: ElementHost, el: ElementHandle, choices: string | readonly string[], wait: WaitOptions = {}): Promise<SelectedOption[]> {
  const wanted = typeof choices === "string" ? [choices] : [...choices];
  if (!wanted.length) throw new ServiceInvalidArgumentError("selectOptionFromDropdown needs at least one option's text or value");
  return held(host, el, (h) => selectIsolated(host, h, wanted, wait));
}

async function selectIsolated(host: ElementHost, el: ElementHandle, wanted: string[], wait: WaitOptions): Promise<SelectedOption[]> {
  const { handle, value: choice } = await actionableSelect(host, el, wanted, wait);
  if (!choice.ok) {
    if ("single" in choice) {
      throw new ServiceInvalidArgumentError(`${choice.name} takes one option, got ${wanted.length}: ${quoted(wanted)}`, { hint: "give one option, or target a <select multiple>" });
    }
    throw new ServiceElementNotFoundError(`no option ${quoted(choice.missing)} in ${choice.name}`, { hint: `options are: ${choice.options.slice(0, 20).join(", ")}` });
  }
  const now = await callOn<{ indexes: number[]; options: SelectedOption[] }>(handle, function (this: Element) {
    // The element acted on: this one, or the select a label (or an element inside one) stands for.
    const e = this.nodeType === Node.ELEMENT_NODE ? this : this.parentElement!;
    const s = (e.localName === "select" ? e : (e.closest("label") as HTMLLabelElement | null)?.control) as HTMLSelectElement | null;
    const selected = Array.from(s?.selectedOptions ?? []);
    return { indexes: selected.map((o) => o.index), options: selected.map((o) => ({ value: o.value, text: o.text.trim() })) };
  });
  const same = now.indexes.length === choice.indexes.length && choice.indexes.every((i) => now.indexes.includes(i));
  if (same) return now.options;
  throw new ServiceClickError(`chose ${quoted(wanted)} but the dropdown now shows ${describeSelected(now.options)}`, {
    hint: "the page undid the choice (a script on input or change); look at it with a new snapshot",
  });
}

const quoted = (list: readonly string[]) => list.map((w) => JSON.stringify(w)).join(", ");

/** `"Red", "Blue" (b)`: each option's text, and its value where that differs; "nothing" for none. */
export function describeSelected(options: readonly SelectedOption[]): string {
  if (!options.length) return "nothing";
  return options.map((o) => `${JSON.stringify(o.text)}${o.value !== o.text ? ` (${o.value})` : ""}`).join(", ");
}

/** Waits until the select is actionable, then chooses in the same page call. */
function actionableSelect(host: ElementHost, el: ElementHandle, wanted: string[], wait: WaitOptions) {
  return actionable<Choice>("select", el, wait, {
    ...opts(host, wait),
    then: {
      fn: function (this: HTMLSelectElement, want: string[], tools: { short(e: Element): string }) {
        const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
        const options = Array.from(this.options);
        const name = `the dropdown ${tools.short(this)}`;
        if (want.length > 1 && !this.multiple) return { ok: false, name, single: true };
        const find = (w: string) => options.find((o) => o.value === w) ?? options.find((o) => norm(o.text) === norm(w)) ?? options.find((o) => norm(o.text).includes(norm(w)));
        const hits = want.map(find);
        const missing = want.filter((_, i) => !hits[i]);
        if (missing.length) return { ok: false, name, missing, options: options.map((o) => o.text.trim()) };
        const chosen = new Set(hits as HTMLOptionElement[]);
        if (this.multiple) for (const o of options) o.selected = chosen.has(o);
        else for (const o of chosen) o.selected = true;
        this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        this.dispatchEvent(new Event("change", { bubbles: true }));
        return { ok: true, indexes: [...chosen].map((o) => o.index) };
      },
      args: [wanted],
    },
  });
}
