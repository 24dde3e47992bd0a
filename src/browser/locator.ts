/**
 * A lazy handle on "the element this selector names". Every action resolves the selector afresh, so a
 * locator survives re-renders; the ElementHandle it resolves to is used for one action only. Actions wait
 * until the element is actionable, as Playwright's do (see actionability.ts).
 */
import { DEFAULT_ACTION_TIMEOUT_MS } from "./actionability.js";
import * as el from "./element.js";
import type { Page } from "./page.js";
import { resolveSelector, selectorOf, type ElementHandle } from "./resolve.js";

export interface LocatorActionOptions {
  /** Milliseconds to wait for the element to be actionable (visible, stable, enabled, receiving the event). */
  timeout?: number | undefined;
}

export class Locator {
  constructor(
    private readonly page: Page,
    readonly selector: string,
    readonly deep: boolean,
  ) {}

  resolve(): Promise<ElementHandle> {
    return resolveSelector(this.page.frames, this.selector, { deep: this.deep });
  }

  /**
   * Resolves, waits until the element is actionable (a re-rendered element is resolved again), acts, and
   * lets the page settle. `timeout`: how long to wait for the element (default DEFAULT_ACTION_TIMEOUT_MS).
   */
  private async run<T>(options: LocatorActionOptions, action: (h: ElementHandle, wait: el.WaitOptions) => Promise<T>): Promise<T> {
    const deadline = Date.now() + (options.timeout ?? DEFAULT_ACTION_TIMEOUT_MS);
    // Holds the page's object group until the action is done: the objects resolving made are released then.
    const release = this.page.frames.hold();
    let result: T;
    try {
      result = await action(await this.resolve(), { deadline, again: () => this.resolve() });
    } finally {
      release();
    }
    await this.page.settle();
    return result;
  }

  click(options: { button?: "left" | "right" | "middle"; clickCount?: number } & LocatorActionOptions = {}): Promise<void> {
    const { timeout, ...input } = options;
    return this.run({ timeout }, (h, w) => el.click(this.page, h, input, w));
  }
  dblclick(options: LocatorActionOptions = {}): Promise<void> {
    return this.click({ ...options, clickCount: 2 });
  }
  hover(options: LocatorActionOptions = {}): Promise<void> {
    return this.run(options, (h, w) => el.hover(this.page, h, w));
  }
  fill(value: string, options: LocatorActionOptions = {}): Promise<void> {
    return this.run(options, (h, w) => el.fill(this.page, h, value, w));
  }
  type(text: string, options: LocatorActionOptions = {}): Promise<void> {
    return this.run(options, (h, w) => el.type(this.page, h, text, w));
  }
  /** Focuses the element and presses the key (no other checks, as in Playwright). */
  press(key: string): Promise<void> {
    return this.run({}, (h) => el.press(this.page, h, key));
  }
  /** The values of the options the select holds afterwards (as Playwright's selectOption returns). */
  async selectOption(choice: string | readonly string[], options: LocatorActionOptions = {}): Promise<string[]> {
    return (await this.run(options, (h, w) => el.selectOption(this.page, h, choice, w))).map((o) => o.value);
  }
  scrollTo(percent: number): Promise<void> {
    return this.run({}, (h) => el.scrollToPercent(h, percent));
  }
  dragTo(target: Locator, options: LocatorActionOptions = {}): Promise<void> {
    return this.run(options, async (h, w) => el.dragTo(this.page, h, await target.resolve(), w));
  }

  /** Runs `fn` on the element (svc's isolated world) and releases what resolving it made. */
  private async read<T>(fn: (this: any) => T): Promise<T> {
    const release = this.page.frames.hold();
    try {
      return await el.callOn<T>(await this.resolve(), fn);
    } finally {
      release();
    }
  }

  textContent(): Promise<string> {
    return this.read(function (this: Node) {
      return this.textContent ?? "";
    });
  }
  inputValue(): Promise<string> {
    return this.read(function (this: HTMLInputElement) {
      return String(this.value ?? "");
    });
  }
  async isVisible(): Promise<boolean> {
    try {
      return await this.read(function (this: Element) {
        const r = this.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(this).visibility !== "hidden";
      });
    } catch {
      return false;
    }
  }
  /** The canonical deep XPath of the element (what Action records carry). */
  async xpath(): Promise<string> {
    return selectorOf(this.page.frames, await this.resolve());
  }
}
