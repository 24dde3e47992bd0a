/**
 * The pure parts of issue 43: the diff of two outlines by ref or text, which outline a delta counts from, the
 * tail cut of a budget (within it by the code's own estimate, header included), and the CLI session's file of
 * last outlines (0600, the most recent tabs, removed with the session).
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deltaBase, diffOutline, keepOutline, keptLines, MAX_OUTLINE_CHARS, MAX_OUTLINES_PER_TAB, type Outline } from "../../src/snapshot/delta.js";
import { estimateTokens, fit, lineText, type Line } from "../../src/snapshot/render.js";
import { MAX_OUTLINE_PAGES, sessionOutlineStore } from "../../src/store/outlines.js";
import { outlinePath, removeSession } from "../../src/store/session-records.js";

const line = (text: string, ref?: string, depth = 0): Line => ({ depth, head: ref ? `${ref} button` : "", name: text, value: "", tail: "", ref, anchor: false, dropped: false });

describe("diffOutline", () => {
  it("matches ref lines by ref and text lines by text; prints changes in the new order, a line gone after the last line before it that stayed", () => {
    const before = keptLines([line("Title"), line("Save", "e1"), line("Status: idle"), line("Delete", "e2"), line("Help", "e3")]);
    const after = [line("Title"), line("Save now", "e1"), line("Status: busy"), line("Help", "e3"), line("Undo", "e4")];
    const d = diffOutline(before, after);
    expect(d.header).toBe("[delta since the last snapshot: 1 changed, 2 added, 2 removed]");
    expect(d.lines.map(lineText)).toEqual(["~ e1 button Save now", "- Status: idle", "- e2 button Delete", "+ Status: busy", "+ e4 button Undo"]);
    expect(diffOutline(keptLines(after), after)).toEqual({ lines: [], header: "[delta: no change since the last snapshot]" });
  });

  it("keeps the indentation of a changed line, after its mark", () => {
    const d = diffOutline(keptLines([line("Name", "e5", 2)]), [{ ...line("Name", "e5", 2), value: "Ada" }]);
    expect(d.lines.map(lineText)).toEqual(["~     e5 button Name: Ada"]);
  });
});

describe("the outline a delta counts from", () => {
  const o = (document: string, mode: string, text = "x"): Outline => ({ document, mode, lines: [{ text }] });

  it("the last of the same options and document; else a full snapshot and why", () => {
    expect(deltaBase([], "d1", "i")).toEqual({ full: "no earlier snapshot of this tab" });
    let kept = keepOutline([], o("d1", "i", "one"));
    kept = keepOutline(kept, o("d1", "all"));
    expect(deltaBase(kept, "d1", "i")).toEqual({ previous: [{ text: "one" }] });
    expect(deltaBase(kept, "d2", "i")).toEqual({ full: "page changed" });
    expect(deltaBase(kept, "d1", "sel")).toEqual({ full: "no earlier snapshot of this tab with these options (-i, -s)" });
    kept = keepOutline(kept, o("d1", "i", "two"));
    expect(kept.map((k) => k.mode)).toEqual(["i", "all"]);
    for (const m of ["a", "b", "c"]) kept = keepOutline(kept, o("d1", m));
    expect(kept).toHaveLength(MAX_OUTLINES_PER_TAB);
  });

  it("an outline past the bound is not kept, and the next delta says so", () => {
    const kept = keepOutline([], o("d1", "i", "y".repeat(MAX_OUTLINE_CHARS + 1)));
    expect(kept[0]!.lines).toEqual([]);
    expect(deltaBase(kept, "d1", "i")).toEqual({ full: `the last snapshot was too large to keep (over ${MAX_OUTLINE_CHARS} characters)` });
  });
});

describe("a budget the ref lines exceed", () => {
  const many = () => Array.from({ length: 400 }, (_, i) => line(`Edit item ${i + 1}`, `e${i + 1}`));

  it("cuts the tail within the budget, header included, and names the first ref left out", () => {
    for (const budget of [50, 200, 777]) {
      const out = fit(many(), { maxTokens: budget, cutRefs: true, header: ["[full snapshot: page changed]"] });
      expect(estimateTokens(out.text)).toBeLessThanOrEqual(budget);
      const lines = out.text.split("\n");
      expect(lines[0]).toBe("[full snapshot: page changed]");
      const shown = lines.length - 2;
      expect(lines.at(-1)).toBe(`… ${400 - shown} lines left out (${400 - shown} with refs; token budget): the rest: --from e${shown + 1}, a part: -s <selector>`);
      expect(out.refs).toEqual(Array.from({ length: shown }, (_, i) => `e${i + 1}`));
    }
  });

  it("without cutRefs (an operation's own snapshot) every ref line stays", () => {
    const out = fit(many(), { maxTokens: 50 });
    expect(out.refs).toHaveLength(400);
    expect(out.cut).toBeUndefined();
  });
});

describe("the session's file of last outlines", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "svc-outlines-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("0600, the most recent tabs only, unreadable read as none, removed with the session", () => {
    const store = sessionOutlineStore("s1", root);
    for (let i = 0; i <= MAX_OUTLINE_PAGES; i++) store.saveOutlines(`tab${i}`, [{ document: "d", mode: "m", lines: [{ text: `t${i}` }] }]);
    const path = outlinePath(root, "s1");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.loadOutlines("tab0")).toBeUndefined();
    expect(store.loadOutlines(`tab${MAX_OUTLINE_PAGES}`)).toEqual([{ document: "d", mode: "m", lines: [{ text: `t${MAX_OUTLINE_PAGES}` }] }]);
    writeFileSync(path, "{not json");
    expect(store.loadOutlines("tab1")).toBeUndefined();
    removeSession("s1", root);
    expect(existsSync(path)).toBe(false);
  });
});
