/**
 * Clickables inside a focusable container (focusable-container.html, issue 40): a tab inside `<main tabindex="-1">`,
 * SVG nodes in a focusable chart, Reply and Forward in a focusable mail pane each get their own ref that clicks its
 * own handler, and the containers' lines carry no name strung from their children.
 */
import { describe, expect, it } from "vitest";
import { useService } from "../support/browser.js";
import { expectText } from "../support/models.js";
import { useFixtureServer } from "../support/use-resource.js";

const server = useFixtureServer();
const env = useService();

/** The outline's lines, trimmed, and the ref of the line `eN <role> <name>` (throws when absent). */
async function open(): Promise<{ text: string; lines: string[]; ref: (line: string) => string }> {
  await env.svc.page.goto(server.url("focusable-container.html"));
  const { pageText: text } = await env.svc.extract();
  const lines = text.split("\n").map((l) => l.trim());
  const ref = (line: string) => {
    const hit = lines.find((l) => l.replace(/^e\d+ /, "") === line && /^e\d+ /.test(l));
    if (!hit) throw new Error(`no "eN ${line}" in:\n${text}`);
    return hit.split(" ")[0]!;
  };
  return { text, lines, ref };
}

describe("clickables inside a focusable container", () => {
  it("each control gets its own ref; a container's line is only its own", async () => {
    const { text, lines, ref } = await open();
    for (const line of ["clickable Parameters", "button Execute", "clickable every 5s", "clickable", "clickable Reply", "clickable Forward"]) ref(line);
    expect(text).toMatch(/^e\d+ main\n {2}e\d+ clickable Parameters\n {2}e\d+ button Execute$/m);
    // The focusable chart and mail pane keep their refs, with no name taken from what is inside them.
    expect(lines.filter((l) => /^e\d+ generic$/.test(l))).toHaveLength(2);
    expect(text).not.toContain("Parameters Execute");
    expect(text).not.toContain("Reply Forward");
    expect(text).toMatch(/^ {2}Hello Ada, the minutes are attached\.$/m);
  });

  it("clicking each ref reaches that element's own handler", async () => {
    const { lines, ref } = await open();
    const click = (r: string) => env.svc.act({ selector: r, method: "click", description: "", arguments: [] });
    const svgButton = lines.find((l) => /^e\d+ clickable$/.test(l))!.split(" ")[0]!;
    for (const [r, id] of [[ref("clickable Parameters"), "tab"], [ref("clickable every 5s"), "n1"], [svgButton, "b1"], [ref("clickable Reply"), "reply"], [ref("clickable Forward"), "forward"]] as const) {
      const res = await click(r);
      expect(res.success, id).toBe(true);
      await expectText(env.svc.page, "#result", `clicked: ${id}`);
    }
  });
});
