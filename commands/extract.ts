/** `svc extract [URL]`: the page's text. With a URL and no --session: a one-shot browser, closed at the end. */
import type { GlobalOptions } from "./output.js";
import { type LaunchFlags, type RunContext, checkUrl, withOneShot, withSession } from "./runtime.js";

export async function extract(g: GlobalOptions, rawUrl: string | undefined, flags: LaunchFlags): Promise<void> {
  const url = rawUrl === undefined ? undefined : checkUrl(rawUrl);
  const run = async ({ svc, out, session, note }: RunContext) => {
    const page = svc.page;
    if (url !== undefined) {
      await page.goto(url);
      note({ method: "navigate", parameters: { url }, result: { url: page.url() } });
    }
    const { pageText } = await svc.extract();
    out.result({ ...(session ? { session: session.id } : {}), url: page.url(), pageText }, () => pageText);
  };
  if (url !== undefined && g.session === undefined) await withOneShot(g, flags, run);
  else await withSession(g, run);
}
