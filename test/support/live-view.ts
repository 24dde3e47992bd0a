/** Test helpers for svc's live view page (src/server/live/): where a point of the session's page is on the view. */
import type { Page } from "playwright-core";

/** The view's point over the centre of `box` (the session page's CSS pixels), through the screen's scale and letterbox. */
export function viewPointOf(view: Page, box: { x: number; y: number; width: number; height: number }): Promise<{ x: number; y: number }> {
  return view.evaluate(
    ({ cx, cy }) => {
      const img = document.querySelector("img[data-svc-live]") as HTMLImageElement;
      const r = img.getBoundingClientRect();
      // The painted frame's size (the image's natural size reads 0 while the next frame loads).
      const fw = Number(img.dataset.frameWidth);
      const fh = Number(img.dataset.frameHeight);
      const scale = Math.min(r.width / fw, r.height / fh);
      const w = fw * scale;
      const h = fh * scale;
      return { x: r.left + (r.width - w) / 2 + (cx / Number(img.dataset.pageWidth)) * w, y: r.top + (r.height - h) / 2 + (cy / Number(img.dataset.pageHeight)) * h };
    },
    { cx: box.x + box.width / 2, cy: box.y + box.height / 2 },
  );
}
