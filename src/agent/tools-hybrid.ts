/**
 * hybrid mode: the dom tools plus coordinate tools on the screenshot attached to every step. Coordinates
 * are screenshot pixels; they are divided by devicePixelRatio to get the CSS pixels input events take.
 */
import { z } from "zod";
import type { Page } from "../browser/page.js";
import type { ModelImage } from "../model/types.js";
import { resolveArgument } from "../operations/variables.js";
import { defineTool, highlight, type AgentTool, type ToolEnv } from "./tools.js";

const Coord = z.number().min(0).max(100_000);

async function ratio(page: Page): Promise<number> {
  const r = Number(await page.evaluate("window.devicePixelRatio"));
  return Number.isFinite(r) && r > 0 ? r : 1;
}

async function point(env: ToolEnv, x: number, y: number): Promise<{ x: number; y: number }> {
  const r = await ratio(env.page);
  const p = { x: x / r, y: y / r };
  if (env.highlightCursor) await highlight(env.page, p.x, p.y);
  return p;
}

const clickAt = defineTool({
  name: "clickAt",
  description: "click at a point of the screenshot (pixels from its top-left corner)",
  input: z.object({ x: Coord, y: Coord, button: z.enum(["left", "right", "middle"]).optional(), clickCount: z.number().int().min(1).max(3).optional() }),
  describe: (a) => `click at (${a.x}, ${a.y})`,
  async run(env, a) {
    const p = await point(env, a.x, a.y);
    await env.page.click(p.x, p.y, { ...(a.button ? { button: a.button } : {}), ...(a.clickCount ? { clickCount: a.clickCount } : {}) });
    return { ok: true, summary: `clicked at (${a.x}, ${a.y})`, replay: [{ tool: "clickAt", args: a }] };
  },
});

const typeAt = defineTool({
  name: "typeAt",
  description: "click a field at a point of the screenshot and type text (clear: replace what is there)",
  input: z.object({ x: Coord, y: Coord, text: z.string(), clear: z.boolean().optional() }),
  describe: (a) => `type at (${a.x}, ${a.y})`,
  async run(env, a) {
    const p = await point(env, a.x, a.y);
    await env.page.click(p.x, p.y);
    if (a.clear) {
      await env.page.input.press("Control+A");
      await env.page.input.press("Delete");
    }
    await env.page.type(resolveArgument(a.text, env.variables, env.secrets));
    await env.page.settle();
    return { ok: true, summary: `typed ${a.text.length} characters at (${a.x}, ${a.y})`, replay: [{ tool: "typeAt", args: a }] };
  },
});

const dragAt = defineTool({
  name: "dragAt",
  description: "drag from one point of the screenshot to another",
  input: z.object({ x1: Coord, y1: Coord, x2: Coord, y2: Coord }),
  describe: (a) => `drag (${a.x1}, ${a.y1}) → (${a.x2}, ${a.y2})`,
  async run(env, a) {
    const from = await point(env, a.x1, a.y1);
    const r = await ratio(env.page);
    await env.page.input.drag(from, async () => ({ x: a.x2 / r, y: a.y2 / r }));
    await env.page.settle();
    return { ok: true, summary: `dragged (${a.x1}, ${a.y1}) → (${a.x2}, ${a.y2})`, replay: [{ tool: "dragAt", args: a }] };
  },
});

export function hybridTools(): AgentTool[] {
  return [clickAt, typeAt, dragAt];
}

/** The screenshot sent with a hybrid step, and its size for the prompt. */
export async function stepScreenshot(page: Page): Promise<{ image: ModelImage; width: number; height: number }> {
  const png = await page.screenshot();
  // PNG IHDR: width and height are big-endian at bytes 16 and 20.
  return { image: { mediaType: "image/png", data: png.toString("base64") }, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
