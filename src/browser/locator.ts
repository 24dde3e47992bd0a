/**
 * A lazy handle on "the element this selector names". Every action resolves the selector afresh, so a
 * locator survives re-renders; the ElementHandle it resolves to is used for one action only.
 */
import * as el from "./element.js";
import type { Page } from "./page.js";
import { resolveSelector, selectorOf, type ElementHandle } from "./resolve.js";

export class Locator {
  constructor(
    private readonly page: Page,
    readonly selector: string,
    readonly deep: boolean,
  ) {}

  resolve(): Promise<ElementHandle> {
    return resolveSelector(this.page.frames, this.selector, { deep: this.deep });
  }

  private async run(action: (h: ElementHandle) => Promise<void>): Promise<void> {
    await action(await this.resolve());
    await this.page.settle();
  }

  click(options: { button?: "left" | "right" | "middle"; clickCount?: number } = {}): Promise<void> {
    return this.run((h) => el.click(this.page, h, options));
  }
  dblclick(): Promise<void> {
    return this.click({ clickCount: 2 });
  }
  hover(): Promise<void> {
    return this.run((h) => el.hover(this.page, h));
  }
  fill(value: string): Promise<void> {
    return this.run((h) => el.fill(this.page, h, value));
  }
  type(text: string): Promise<void> {
    return this.run((h) => el.type(this.page, h, text));
  }
  press(key: string): Promise<void> {
    return this.run((h) => el.press(this.page, h, key));
  }
  selectOption(choice: string): Promise<void> {
    return this.run((h) => el.selectOption(h, choice));
  }
  scrollTo(percent: number): Promise<void> {
    return this.run((h) => el.scrollToPercent(h, percent));
  }
  dragTo(target: Locator): Promise<void> {
    return this.run(async (h) => el.dragTo(this.page, h, await target.resolve()));
  }

  async textContent(): Promise<string> {
    return el.callOn<string>(await this.resolve(), function (this: Node) {
      return this.textContent ?? "";
    });
  }
  async inputValue(): Promise<string> {
    return el.callOn<string>(await this.resolve(), function (this: HTMLInputElement) {
      return String(this.value ?? "");
    });
  }
  async isVisible(): Promise<boolean> {
    try {
      return await el.callOn<boolean>(await this.resolve(), function (this: Element) {
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
