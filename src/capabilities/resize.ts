/**
 * The MCP server's viewport size (MCP only: the CLI sets a session's viewport with `svc set viewport`, for every
 * tab and the tabs to come, commands/host-emulation.ts). What it reports is the size the page then measures.
 */
import { z } from "zod";
import { capability, moves, type Report } from "./declare.js";

const SIDE = z.number().int().min(100).max(10_000).describe("CSS pixels");

export const resize = capability({
  name: "resize",
  description: "Resize the current tab's viewport",
  input: { width: SIDE, height: SIDE },
  mcp: { cap: "tabs", annotations: moves("Resize the viewport", true) },
  run: async (ctx, i): Promise<Report> => {
    const page = await ctx.page();
    await page.mainSession.send("Emulation.setDeviceMetricsOverride", { width: i.width, height: i.height, deviceScaleFactor: 0, mobile: false });
    const seen = await page.evaluate<{ w: number; h: number }>("({ w: window.innerWidth, h: window.innerHeight })");
    return { kind: "report", text: `viewport ${seen.w}x${seen.h}`, data: { width: seen.w, height: seen.h } };
  },
});
