/**
 * hybrid mode: the dom tools plus coordinate tools on the screenshot attached to every step. Coordinates
 * are screenshot pixels; they are divided by the picture's scale (devicePixelRatio, less when the picture was
 * shrunk to its 2000 px bound) to get the CSS pixels input events take.
 */
import { z } from "zod";
import type { Page } from "../browser/page.js";
import { viewportScale } from "../browser/screenshot.js";
import type { ModelImage } from "../model/types.js";
import { resolveArgument } from "../operations/variables.js";
import { defineTool, highlight, type AgentTool, type ToolEnv } from "./tools.js";

const Coord = z.number().min(0).max(100_000);

/** Image px per CSS px of the step's picture. */
export const ratio = (page: Page): Promise<number> => viewportScale(page);

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
  const shot = await page.picture({ type: "png" });
  return { image: { mediaType: "image/png", data: shot.data.toString("base64") }, width: shot.width, height: shot.height };
}
