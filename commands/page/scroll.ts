/**
 * `svc scrollintoview TARGET`: reports what the page shows afterwards, read back from it: the element's box and
 * whether it is in the viewport now. (`svc scroll` is the scroll capability, src/capabilities/.)
 */
import type { Page } from "../../src/index.js";
import { ServiceElementNotFoundError, ServiceInvalidArgumentError } from "../../src/base.js";
import { callOn, elementBox } from "../../src/internal.js";
import { elementOf } from "./inspect.js";
import type { GlobalOptions } from "../core/output.js";
import { withSession } from "../core/runtime.js";

export async function scrollIntoView(g: GlobalOptions, target: string | undefined): Promise<void> {
  if (!target?.trim()) throw new ServiceInvalidArgumentError("scrollintoview: the target is missing", { hint: "svc scrollintoview e3  (a ref from `svc snapshot`, or a selector)" });
  await withSession(g, async ({ svc, out, session }) => {
    const page: Page = svc.page;
    const el = await elementOf(page, session, target);
    const shown = await callOn<boolean>(el, function (this: Node) {
      const e = this.nodeType === Node.ELEMENT_NODE ? (this as Element) : this.parentElement!;
      if (e.getClientRects().length === 0) return false;
      e.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      return true;
    });
    if (!shown) throw new ServiceElementNotFoundError(`scrollintoview: ${target} has no box (display: none, or not rendered)`, { hint: "check it with `svc is visible`" });
    const box = await elementBox(page.frames, el);
    const view = await page.evaluate<{ w: number; h: number }>("({ w: window.innerWidth, h: window.innerHeight })");
    const inView = box.x < view.w && box.y < view.h && box.x + box.width > 0 && box.y + box.height > 0;
    out.result({ session: session?.id, target, box, inView }, () =>
      inView ? `in view: ${target} at x ${Math.round(box.x)}, y ${Math.round(box.y)} (${Math.round(box.width)}×${Math.round(box.height)})` : `scrolled, but ${target} is still outside the viewport (x ${Math.round(box.x)}, y ${Math.round(box.y)})`,
    );
  });
}
