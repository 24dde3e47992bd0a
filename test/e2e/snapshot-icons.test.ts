/**
 * Icon-only controls (icons.html, issue 40): each kind gets the name a person would use, marked `(icon)`, while a
 * labelled button keeps its label unmarked, a title Chrome names by stays unmarked, and a control the page says
 * nothing about stays unnamed. The derived name is the ref's name, and its ref clicks that control.
 */
import { describe, expect, it } from "vitest";
import { useService } from "../support/browser.js";
import { expectText } from "../support/models.js";
import { useFixtureServer } from "../support/use-resource.js";
import { captureSnapshot, PageRefs } from "../../src/snapshot/index.js";

const server = useFixtureServer();
const env = useService();

describe("icon-only controls", () => {
  it("each kind gets its derived name, marked; labels and title names stay unmarked", async () => {
    await env.svc.page.goto(server.url("icons.html"));
    const snap = await captureSnapshot(env.svc.page);
    const lines = snap.text.split("\n").map((l) => l.replace(/^e\d+ /, ""));
    expect(lines).toEqual([
      "h1 Icons",
      "clickable Edit row (icon)",
      "link Alter table (icon)",
      "button Share this page (icon)",
      "button Archive (icon)",
      "button Settings (icon)",
      "button delete (icon)",
      "button trash (icon)",
      "button star border (icon)",
      "button ×",
      "button Save",
      "button Print",
      "button",
    ]);
    const named = snap.refs.list().map((r) => [r.name, r.derived === true]);
    expect(named).toContainEqual(["delete", true]);
    expect(named).toContainEqual(["Save", false]);
    expect(named).toContainEqual(["Print", false]);
  });

  it("a derived name is the ref's own: kept across snapshots, and its ref clicks that control", async () => {
    const page = env.svc.page;
    await page.goto(server.url("icons.html"));
    const { pageText } = await env.svc.extract();
    const refOf = (line: string) => new RegExp(`^(e\\d+) ${line.replace(/[()]/g, "\\$&")}$`, "m").exec(pageText)?.[1];
    for (const [line, id] of [["button delete (icon)", "delete"], ["link Alter table (icon)", "alter"], ["button star border (icon)", "star"]] as const) {
      const ref = refOf(line);
      expect(ref, line).toBeDefined();
      expect((await env.svc.act({ selector: ref!, method: "click", description: "", arguments: [] })).success).toBe(true);
      await expectText(page, "#result", `clicked: ${id}`);
    }
    // Numbered page-wide twice: the same element keeps its ref under its derived name.
    const refs = new PageRefs();
    refs.enter("doc");
    const first = await captureSnapshot(page, { refs });
    const second = await captureSnapshot(page, { refs });
    const trash = (s: typeof first) => s.refs.list().find((r) => r.name === "trash");
    expect(trash(second)?.ref).toBe(trash(first)?.ref);
    expect(refs.get(trash(first)!.ref)).toMatchObject({ role: "button", name: "trash", derived: true });
  });
});
