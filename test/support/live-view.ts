/** Test helpers for svc's live view page (src/server/live/): where a point of the session's page is on the view. */
import type { Page } from "playwright-core";

/** The view's point over the centre of `box` (the session page's CSS pixels), through the screen's scale and letterbox. */
export function viewPointOf(view: Page, box: { x: number; y: number; width: number; height: number }): Promise<{ x: number; y: number }> {
  return view.evaluate(
    ({ cx, cy }) => {
      const img = document.querySelector("img[data-svc-live]") as HTMLImageElement;
      const r = img.getBoundingClientRect();
      const scale = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
      const w = img.naturalWidth * scale;
      const h = img.naturalHeight * scale;
      return { x: r.left + (r.width - w) / 2 + (cx / Number(img.dataset.pageWidth)) * w, y: r.top + (r.height - h) / 2 + (cy / Number(img.dataset.pageHeight)) * h };
    },
    { cx: box.x + box.width / 2, cy: box.y + box.height / 2 },
  );
}
