/**
 * Driving a page step by step through the built CLI: `svc snapshot` prints refs, each verb (`svc click e3`,
 * `svc fill e5 Ada`, …) runs one Action on a ref from it, and `svc get` reads what changed. Real Chrome,
 * real fixture pages; exit codes and --json shapes as a script would see them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOneLine, json, svc, useCliWorld } from "./helpers.js";

interface SnapshotJson {
  schemaVersion: number;
  ok: boolean;
  session: string;
  url: string;
  snapshot: string;
  refs: Record<string, { role: string; name: string }>;
  tokens: number;
}

const world = useCliWorld({ session: true });

const run = (...args: string[]) => svc(args, world.sb.env);

/** Navigates and takes a snapshot; returns the ref of each element by "role name". */
async function open(page: string): Promise<(role: string, name: string) => string> {
  expect((await run("goto", world.server.url(page))).code).toBe(0);
  const r = await run("--json", "snapshot", "-i");
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const { refs } = json<SnapshotJson>(r.stdout);
  return (role, name) => {
    const hit = Object.entries(refs).find(([, v]) => v.role === role && v.name.startsWith(name));
    if (!hit) throw new Error(`no ${role} "${name}" in ${JSON.stringify(refs)}`);
    return hit[0];
  };
}

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  expect(r.stderr, args.join(" ")).toBe("");
  expect(r.code, args.join(" ")).toBe(0);
  return r.stdout.trim();
}

const text = (selector: string) => ok("get", "text", selector);

describe("svc snapshot", () => {
  it("prints the outline with refs; --json gives {snapshot, refs: {e1: {role, name}}}; -i, --max-tokens and -s narrow it", async () => {
    expect((await run("goto", world.server.url("forms.html"))).code).toBe(0);
    const full = await ok("snapshot");
    expect(full).toMatch(/^\s*e\d+ textbox Full name$/m);
    expect(full).toContain("Help: fill in the form and press Submit.");

    const r = await run("--json", "snapshot");
    expect(r.code).toBe(0);
    const doc = json<SnapshotJson>(r.stdout);
    expect(doc).toMatchObject({ schemaVersion: 1, ok: true, url: world.server.url("forms.html") });
    expect(doc.snapshot).toBe(full);
    expect(doc.tokens).toBeGreaterThan(0);
    const ref = /^\s*(e\d+) checkbox Subscribe to newsletter$/m.exec(doc.snapshot)![1]!;
    expect(doc.refs[ref]).toEqual({ role: "checkbox", name: "Subscribe to newsletter" });
    // Every ref the outline shows is in the map, and only those.
    expect(Object.keys(doc.refs).sort()).toEqual([...doc.snapshot.matchAll(/^\s*(e\d+) /gm)].map((m) => m[1]).sort());

    // The same refs as extract: the numbering is the session's (one store), not this command's.
    const extracted = await ok("extract");
    expect(extracted).toContain(`${ref} checkbox Subscribe to newsletter`);

    const interactive = await ok("snapshot", "-i");
    expect(interactive).toContain(`${ref} checkbox Subscribe to newsletter`);
    expect(interactive).not.toContain("Help: fill in the form");
    expect(interactive.length).toBeLessThan(full.length);

    const scoped = await ok("snapshot", "-s", "fieldset");
    expect(scoped).toContain("radio Pro");
    expect(scoped).not.toContain("Full name");

    const small = json<SnapshotJson>((await run("--json", "snapshot", "--max-tokens", "40")).stdout);
    expect(small.tokens).toBeLessThan(doc.tokens);
    expect(small.tokens).toBeLessThanOrEqual(40); // ref lines too are cut to the budget, which says how to see the rest
    expect(small.snapshot).toMatch(/\n… \d+ lines left out \(\d+ with refs; token budget\): the rest: --from e\d+, a part: -s <selector>$/);
    expect(Object.keys(small.refs).length).toBeLessThan(Object.keys(doc.refs).length);

    const bad = await run("snapshot", "--max-tokens", "lots");
    expect(bad.code).toBe(2);
    expect(expectOneLine(bad.stderr)).toMatch(/--max-tokens/);
  });
});

describe("verbs on refs", () => {
  it("select with several options: a <select multiple> holds them all and the output says so; a single select refuses two (issue 40)", async () => {
    expect((await run("goto", world.server.url("select-multiple.html"))).code).toBe(0);
    expect(await ok("select", "#toppings", "Ham", "Basil")).toMatch(/the dropdown now holds "Ham" \(ham\), "Basil" \(basil\)/);
    expect(await ok("eval", "Array.from(document.getElementById('toppings').selectedOptions, (o) => o.value).join()")).toBe('"ham,basil"');
    const two = await run("--json", "select", "#size", "Small", "Large");
    expect(two.code).not.toBe(0);
    expect(json<{ error: { code: string; message: string } }>(two.stdout).error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^the dropdown <select id="size"> takes one option, got 2/) });
  });

  it("fill, type, check, uncheck, select, press, click change the form", async () => {
    const ref = await open("forms.html");
    await ok("fill", ref("textbox", "Full name"), "Ada");
    await ok("type", ref("textbox", "Full name"), " Lovelace");
    expect(await ok("get", "value", ref("textbox", "Full name"))).toBe("Ada Lovelace");

    await ok("check", ref("checkbox", "Subscribe"));
    expect(await text("#log")).toBe("subscribe: true");
    await ok("check", ref("checkbox", "Subscribe")); // already checked: nothing happens
    expect(await ok("get", "text", "#log")).toBe("subscribe: true");
    await ok("uncheck", ref("checkbox", "Subscribe"));
    expect(await text("#log")).toBe("subscribe: false");
    await ok("check", ref("radio", "Pro"));

    await ok("select", ref("combobox", "Country"), "France");
    expect(await ok("get", "value", ref("combobox", "Country"))).toBe("fr");

    // press without a target: the key goes to the focused element (Enter in a field submits the form).
    await ok("focus", ref("textbox", "Email"));
    await ok("press", "Enter");
    const submitted = JSON.parse(await text("#result")) as Record<string, unknown>;
    expect(submitted).toMatchObject({ name: "Ada Lovelace", subscribe: false, plan: "pro", country: "fr" });

    await ok("click", ref("link", "Help"));
    expect(await text("#log")).toBe("clicked: help-link");

    // check on something that is not a checkbox, uncheck on a radio: element errors (6), one line.
    const notBox = await run("check", ref("textbox", "Email"));
    expect(notBox.code).toBe(6);
    expect(expectOneLine(notBox.stderr)).toMatch(/not a checkbox or radio/);
    const radio = await run("uncheck", ref("radio", "Pro"));
    expect(radio.code).toBe(6);
  });

  it("dblclick, hover, focus, press on a target, scroll, upload on the controls page", async () => {
    const ref = await open("controls.html");
    await ok("dblclick", ref("button", "Double me"));
    expect(await text("#double-count")).toBe("1");
    await ok("hover", ref("button", "Hover me"));
    expect(await text("#hover-state")).toBe("hot");
    await ok("focus", ref("textbox", "Focus me"));
    expect(await text("#focus-state")).toBe("focused");
    await ok("press", ref("textbox", "Keys"), "Tab");
    expect(await text("#last-key")).toBe("Tab");

    await ok("scroll", "down");
    const down = Number(await text("#scroll-y"));
    expect(down).toBeGreaterThan(100);
    await ok("scroll", "bottom");
    expect(Number(await text("#scroll-y"))).toBeGreaterThan(down);
    await ok("scroll", "top");
    expect(await text("#scroll-y")).toBe("0");

    const file = join(world.sb.tmp, "..", "cv.pdf");
    writeFileSync(file, "%PDF-1.4 fake");
    const up = await run("--json", "upload", ref("button", "CV"), file);
    expect(up.code).toBe(0);
    expect(json(up.stdout)).toMatchObject({ schemaVersion: 1, ok: true, result: { success: true, actions: [{ method: "setInputFiles", arguments: [file] }] } });
    expect(await text("#chosen")).toBe("cv.pdf (13 bytes)");

    const missing = await run("upload", ref("button", "CV"), join(world.sb.tmp, "..", "nope.pdf"));
    expect(missing.code).toBe(2);
    expect(expectOneLine(missing.stderr)).toMatch(/upload: files: no such file .*nope\.pdf/);
    const notFile = await run("upload", ref("button", "Double me"), file);
    expect(notFile.code).toBe(6);
    expect(expectOneLine(notFile.stderr)).toMatch(/not a file input/);
  });

  it("drag moves one element onto another", async () => {
    const ref = await open("drag.html");
    await ok("drag", ref("button", "Drag me"), ref("region", "Drop zone"));
    expect(await text("#result")).toBe("dropped: drag-source");
  });

  it("a stale or unknown ref fails with exit 6 and STALE_REF; bad usage is exit 2", async () => {
    const ref = await open("controls.html");
    const gone = ref("button", "Remove me");
    await ok("click", gone);
    const stale = await run("click", gone);
    expect(stale.code).toBe(6);
    expect(expectOneLine(stale.stderr)).toMatch(/removed from the page/);
    const unknown = await run("--json", "click", "e999");
    expect(unknown.code).toBe(6);
    expect(json(unknown.stdout)).toMatchObject({ ok: false, error: { code: "STALE_REF" } });

    for (const args of [["fill", gone], ["click"], ["click", "e1", "extra"], ["drag", "e1"], ["get", "colour"], ["get", "attr"]]) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expectOneLine(r.stderr);
    }
  });

  it("svc get: url, title, text, value, attr with --json; every verb is in the history as an act", async () => {
    const ref = await open("forms.html");
    expect(await ok("get", "url")).toBe(world.server.url("forms.html"));
    expect(json(await ok("--json", "get", "title"))).toMatchObject({ schemaVersion: 1, ok: true, field: "title", value: "Forms" });
    expect(json(await ok("--json", "get", "attr", "href", ref("link", "Help")))).toMatchObject({ field: "attr", name: "href", target: ref("link", "Help"), value: "#help" });
    expect(await ok("get", "text")).toContain("Help: fill in the form and press Submit.");
    await ok("fill", ref("textbox", "Email"), "ada@example.com");
    expect(json(await ok("--json", "get", "value", "#email"))).toMatchObject({ field: "value", value: "ada@example.com" });

    const history = json<{ entries: { method: string; parameters: { action?: { method: string; selector: string } } }[] }>(await ok("--json", "history"));
    const acts = history.entries.filter((e) => e.method === "act").map((e) => e.parameters.action?.method);
    for (const m of ["fill", "type", "check", "uncheck", "selectOptionFromDropdown", "press", "click", "doubleClick", "hover", "focus", "setInputFiles", "dragAndDrop", "scrollTo", "nextChunk"]) {
      expect(acts, m).toContain(m);
    }
    expect(history.entries.some((e) => e.method === "snapshot")).toBe(true);
  });
});

describe("a verb that opens a tab", () => {
  it("says which tab it opened and that later commands drive it", async () => {
    expect((await run("goto", world.server.url("popup.html"))).code).toBe(0);
    const before = json<{ tabs: { id: number }[] }>((await run("--json", "tabs")).stdout).tabs.map((t) => t.id);
    const r = await run("click", "#open-popup");
    expect(r.code, r.stderr).toBe(0);
    const m = /^done: click #open-popup \(opened tab (\d+): (\S+); now selected\)$/.exec(r.stdout.trim());
    expect(m, r.stdout).toBeTruthy();
    // The tab is named by the document it opened, not by the empty one window.open() makes first.
    expect(m![2]).toContain("popup-target.html");
    const tabs = json<{ selected: number; tabs: { id: number; url: string }[] }>((await run("--json", "tabs")).stdout);
    expect(before).not.toContain(Number(m![1]));
    expect(tabs.selected).toBe(Number(m![1]));
    expect((await run("get", "url")).stdout.trim()).toContain("popup-target.html");
    expect((await run("tabs", "close")).code).toBe(0);
  });
});
