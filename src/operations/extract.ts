/** extract() with no instruction: the page's snapshot text, the same text a model is shown. */
import type { Page } from "../browser/page.js";
import type { PageSnapshots, TakeOptions } from "./snapshots.js";

export async function extractPageText(page: Page, snapshots: PageSnapshots, options: TakeOptions = {}): Promise<{ text: string; tokens: number }> {
  const snap = await snapshots.take(page, options);
  return { text: snap.text, tokens: snap.tokens };
}
