/**
 * A click with its hit verification: svc's `act({method: "click"})`, Playwright's `locator.click()` and Stagehand's
 * click on the same counting button, rounds rotated. Each tool's count on the page must equal its calls, so a click
 * reported without landing is an error, not a figure. "read-back" times the verification's one extra page call alone.
 */
import { Stagehand } from "@browserbasehq/stagehand";
import { chromium } from "playwright-core";
import { Service } from "../src/index.js";
import { resolveSelector } from "../src/browser/resolve.js";
import { pressOutcome, watchPress } from "../src/browser/press.js";
import { startFixtureServer } from "../test/support/server.js";
import type { TargetSummary } from "./act-model.js";
import { fmtMs, fmtRatio, ratio, summarize, timed, verdict, type Summary } from "./stats.js";
import { ARGS, CHROME, VIEWPORT } from "./tool.js";

export interface ClickResult {
  date: string;
  page: string;
  runs: number;
  ops: Record<"svc" | "playwright" | "stagehand" | "readBack", { time?: Summary; error?: string }>;
}

const SELECTOR = "#plain";
const XPATH = 'xpath=//*[@id="plain"]';
const COUNT = 'Number(document.getElementById("plain-count").textContent)';

export async function benchClick(runs: number): Promise<ClickResult> {
  const fixtures = await startFixtureServer();
  const url = fixtures.url("cover.html");
  const svc = new Service({ verbose: 0, localBrowserLaunchOptions: { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT } });
  const sh = new Stagehand({ env: "LOCAL", verbose: 0, disablePino: true, localBrowserLaunchOptions: { executablePath: CHROME, args: ARGS, headless: true, viewport: VIEWPORT } });
  const browser = await chromium.launch({ executablePath: CHROME, args: ARGS, headless: true });
  const result: ClickResult = { date: new Date().toISOString(), page: "fixtures/cover.html #plain", runs, ops: { svc: {}, playwright: {}, stagehand: {}, readBack: {} } };
  try {
    await svc.init();
    await sh.init();
    const pw = await browser.newPage({ viewport: VIEWPORT });
    const shPage = sh.context.pages()[0]!;
    await Promise.all([svc.page.goto(url, { waitUntil: "load" }), pw.goto(url, { waitUntil: "load" }), shPage.goto(url, { waitUntil: "load" })]);
    const ops = {
      svc: async () => {
        const r = await svc.act({ selector: XPATH, description: "bench click", method: "click", arguments: [] });
        if (!r.success) throw new Error(`svc click failed: ${r.message}`);
      },
      playwright: () => pw.locator(SELECTOR).click(),
      stagehand: async () => {
        const r = await sh.act({ selector: XPATH, description: "bench click", method: "click", arguments: [] });
        if (!r.success) throw new Error(`stagehand click failed: ${r.message}`);
      },
      readBack: async () => {
        const handle = await resolveSelector(svc.page.frames, SELECTOR, { deep: false });
        const watch = watchPress(handle.frame.session);
        try {
          await pressOutcome(handle, watch);
        } finally {
          watch.stop();
        }
      },
    };
    const counts = { svc: () => svc.page.evaluate<number>(COUNT), playwright: () => pw.evaluate(COUNT) as Promise<number>, stagehand: () => shPage.evaluate(COUNT) as Promise<number> };
    const names = Object.keys(ops) as Array<keyof typeof ops>;
    const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof typeof ops, number[]>;
    for (const n of names) await ops[n]();
    for (let round = 0; round < runs; round++) {
      const shift = round % names.length;
      for (const n of [...names.slice(shift), ...names.slice(0, shift)]) samples[n].push((await timed(ops[n])).ms);
    }
    for (const n of names) result.ops[n] = { time: summarize(samples[n]) };
    for (const n of ["svc", "playwright", "stagehand"] as const) {
      const clicked = await counts[n]();
      if (clicked !== runs + 1) result.ops[n] = { error: `${clicked} clicks on the page for ${runs + 1} reported` };
    }
  } finally {
    await svc.close().catch(() => {});
    await sh.close().catch(() => {});
    await browser.close().catch(() => {});
    await fixtures.close();
  }
  return result;
}

export function clickTables(res: ClickResult): { md: string; targets: TargetSummary[] } {
  const t = (k: keyof ClickResult["ops"]) => res.ops[k].time?.median;
  const cell = (k: keyof ClickResult["ops"]) => res.ops[k].error ?? fmtMs(t(k));
  const rp = ratio(t("svc"), t("playwright"));
  const rs = ratio(t("svc"), t("stagehand"));
  const md = [
    `**Click** — \`act({selector, method: "click"})\` with the press verified where it lands, Playwright's \`locator.click()\` (hit target checked at the press), Stagehand's \`act(Action)\` click (no checks); ${res.page}, the page's counter checked against the calls. Medians of ${res.runs} runs after a warm-up, interleaved; measured ${res.date.slice(0, 10)}`,
    "",
    "| page | svc | Playwright click | svc/Playwright (≤ 0.7×) | Stagehand | svc/Stagehand | svc's read-back of the press |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| ${res.page} | ${cell("svc")} | ${cell("playwright")} | ${fmtRatio(rp)} | ${cell("stagehand")} | ${fmtRatio(rs)} | ${cell("readBack")} |`,
  ].join("\n");
  return { md, targets: [{ what: "click with its hit verification vs Playwright locator.click()", target: "≤ 0.7×", ...(rp !== undefined ? { worst: rp } : {}), verdict: verdict(rp, 0.7), perPage: { [res.page]: rp } }] };
}
