/**
 * The snapshot a caller reads (Service.snapshot), in real Chrome: `delta` prints only what changed since the tab's
 * last snapshot, with refs kept; a new document gives a full snapshot marked as one; a budget the ref lines alone
 * exceed cuts the outline's tail, within the budget by the code's own token estimate, and `from` shows the rest.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { useService } from "../support/browser.js";
import { LARGE_ROWS } from "../support/server.js";
import { estimateTokens } from "../../src/snapshot/index.js";

const server = useFixtureServer();
const env = useService();

/** The ref of the line `eN role name…`. */
function refOf(text: string, role: string, name: string): string {
  const m = new RegExp(`^\\s*(e\\d+) ${role} ${name}`, "m").exec(text);
  if (!m) throw new Error(`no ${role} "${name}" in:\n${text}`);
  return m[1]!;
}

const refsIn = (text: string) => [...text.matchAll(/^\s*(e\d+) /gm)].map((m) => m[1]!);

describe("snapshot delta", () => {
  it("after one field is filled: that line only, marked changed, with its ref; then no change", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("forms.html"));
    const before = (await svc.snapshot({ interactiveOnly: true })).text;
    const name = refOf(before, "textbox", "Full name");
    await svc.act({ selector: "#name", description: "", method: "fill", arguments: ["Ada"] });

    const delta = (await svc.snapshot({ interactiveOnly: true, delta: true })).text;
    expect(delta.split("\n")).toEqual(["[delta since the last snapshot: 1 changed, 0 added, 0 removed]", `~ ${name} textbox Full name: Ada`]);
    expect((await svc.snapshot({ interactiveOnly: true, delta: true })).text).toBe("[delta: no change since the last snapshot]");
  });

  it("after page script changes one text: the old line removed, the new one added, nothing else", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("forms.html"));
    await svc.snapshot();
    await svc.page.evaluate(() => void (document.getElementById("help")!.textContent = "Help: the form was reset."));
    const delta = (await svc.snapshot({ delta: true })).text;
    expect(delta.split("\n")).toEqual([
      "[delta since the last snapshot: 0 changed, 1 added, 1 removed]",
      "- Help: fill in the form and press Submit.",
      "+ Help: the form was reset.",
    ]);
  });

  it("after a navigation: the whole outline, its first line saying it is full; the first with other options: full too", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("forms.html"));
    await svc.snapshot({ interactiveOnly: true });
    await svc.page.goto(server.url("controls.html"));
    const full = (await svc.snapshot({ interactiveOnly: true, delta: true })).text.split("\n");
    expect(full[0]).toBe("[full snapshot: page changed]");
    expect(full.slice(1).join("\n")).toBe((await svc.snapshot({ interactiveOnly: true })).text);
    // Full too: this tab's whole outline (if an earlier test left one) is of another document.
    expect((await svc.snapshot({ delta: true })).text.split("\n")[0]).toMatch(/^\[full snapshot: (page changed|no earlier snapshot of this tab with these options \(-i, -s\))\]$/);
    // Each set of options keeps its own outline: a whole one now does not end the -i one.
    expect((await svc.snapshot({ interactiveOnly: true, delta: true })).text).toBe("[delta: no change since the last snapshot]");
  });

  it("maxTokens 2000 on large.html with interactiveOnly: cut within the budget, saying how to see the rest, which from shows", async () => {
    const svc = env.svc;
    await svc.page.goto(server.url("large.html"));
    const all = (await svc.snapshot({ interactiveOnly: true })).text;
    expect(refsIn(all)).toHaveLength(2 * LARGE_ROWS + 1);
    expect(estimateTokens(all)).toBeGreaterThan(2000);

    const cut = (await svc.snapshot({ interactiveOnly: true, maxTokens: 2000 })).text;
    expect(estimateTokens(cut)).toBeLessThanOrEqual(2000);
    const note = cut.split("\n").at(-1)!;
    const m = /^… (\d+) lines left out \((\d+) with refs; token budget\): the rest: --from (e\d+), a part: -s <selector>$/.exec(note);
    expect(m, note).not.toBeNull();
    const shown = refsIn(cut);
    expect(shown.length + Number(m![2])).toBe(2 * LARGE_ROWS + 1);
    expect(all.split("\n").slice(0, shown.length + 1).join("\n")).toBe(cut.split("\n").slice(0, -1).join("\n"));

    const rest = (await svc.snapshot({ interactiveOnly: true, from: m![3]! })).text;
    expect(refsIn(rest)).toEqual(refsIn(all).slice(shown.length));
    await expect(svc.snapshot({ from: "e999999" })).rejects.toMatchObject({ code: "STALE_REF" });
    await expect(svc.snapshot({ from: m![3]!, delta: true })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
