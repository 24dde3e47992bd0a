/** `svc goto URL`: navigate the session's active page. */
import type { GlobalOptions } from "./output.js";
import { checkUrl, withSession } from "./runtime.js";

export async function goto(g: GlobalOptions, rawUrl: string): Promise<void> {
  const url = checkUrl(rawUrl);
  await withSession(g, async ({ svc, out, session, note }) => {
    const page = svc.page;
    const nav = await page.goto(url);
    const title = await page.title();
    const finalUrl = page.url();
    note({ method: "navigate", parameters: { url }, result: { url: finalUrl, title, status: nav?.status ?? null } });
    out.result({ session: session?.id, url: finalUrl, title, status: nav?.status ?? null }, () => `${finalUrl}${title ? `  ${title}` : ""}`);
  });
}
