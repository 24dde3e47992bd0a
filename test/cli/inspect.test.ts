/**
 * Inspecting the page from the shell (fixtures/pages/inspect.html): `svc is`, `svc get html|count|box|styles`
 * and `svc find`, each checked against the page's own view (its DOM, its own click log in #log).
 */
import { describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { run, ok, fails } = sessionRunners(() => world.sb.env);

const open = async () => ok("goto", world.server.url("inspect.html"));
/** The clicks the page itself saw (its #log also has every mouse event). */
const clicks = async () => (JSON.parse(await ok("eval", "document.getElementById('log').textContent")) as string).split("\n").filter((l) => l.startsWith("clicked"));

describe("svc is", () => {
  it("prints true or false from the element's own state; --json gives {result}; no element fails, a bad state is a usage error", async () => {
    await open();
    expect(await ok("is", "visible", "#save")).toBe("true");
    expect(await ok("is", "visible", "#hidden")).toBe("false");
    expect(await ok("is", "enabled", "#save")).toBe("true");
    expect(await ok("is", "enabled", "#off")).toBe("false");
    expect(await ok("is", "checked", "#terms")).toBe("true");
    expect(await ok("is", "checked", "#news")).toBe("false");
    // The page changes: the answer follows it.
    await ok("eval", "document.getElementById('news').checked = true");
    expect(json<{ result: boolean; state: string }>(await ok("--json", "is", "checked", "#news"))).toMatchObject({ ok: true, state: "checked", result: true });

    expect(await fails(6, "is", "visible", "#nope")).toMatch(/no element matches "#nope"/);
    expect(await fails(2, "is", "shiny", "#save")).toMatch(/is: unknown state "shiny"/);
    expect(await fails(2, "is", "visible")).toMatch(/missing required argument 'target'/);
    expect(await fails(2, "is", "checked", "#save")).toMatch(/not a checkbox/);
  });

  it("takes a ref from the session's snapshot", async () => {
    await open();
    const snap = await ok("snapshot", "-i");
    const ref = /(e\d+) checkbox Terms/.exec(snap)![1]!;
    expect(await ok("is", "checked", ref)).toBe("true");
    await ok("eval", "document.getElementById('terms').checked = false");
    expect(await ok("is", "checked", ref)).toBe("false");
  });
});

describe("svc get html|count|box|styles", () => {
  it("reads the element as the page has it", async () => {
    await open();
    expect(await ok("get", "html", "#save")).toBe('<button id="save" data-testid="save-btn">Save</button>');
    expect(await ok("get", "count", "li.item")).toBe("3");
    expect(await ok("get", "count", "li.none")).toBe("0");
    expect(await ok("get", "count", "xpath=//li")).toBe("3");
    await ok("eval", "document.querySelector('ul').append(document.createElement('li'))");
    expect(json<{ value: number }>(await ok("--json", "get", "count", "li")).value).toBe(4);

    expect(json(await ok("get", "box", "#box"))).toEqual({ x: 50, y: 60, width: 100, height: 40 });
    await ok("eval", "window.scrollTo(0, 20)");
    expect(json<{ value: unknown }>(await ok("--json", "get", "box", "#box")).value).toEqual({ x: 50, y: 40, width: 100, height: 40 });

    expect(json(await ok("get", "styles", "#box", "--prop", "color", "--prop", "font-size"))).toEqual({ color: "rgb(255, 0, 0)", "font-size": "20px" });
    const all = json<Record<string, string>>(await ok("get", "styles", "#box"));
    expect(all).toMatchObject({ position: "absolute", display: "block", color: "rgb(255, 0, 0)" });

    expect(await fails(2, "get", "styles", "#box", "--prop", "col;or")).toMatch(/--prop: "col;or" is not a CSS property name/);
    expect(await fails(2, "get", "html", "#save", "--prop", "color")).toMatch(/--prop applies to get styles/);
    expect(await fails(2, "get", "box")).toMatch(/get box: the target is missing/);
    expect(await fails(6, "get", "box", "#nope")).toMatch(/no element matches/);
  });
});

interface FindJson {
  total: number;
  matches: { target: string; ref?: string; tag: string; text: string }[];
}

describe("svc find", () => {
  it("lists matches with refs the verbs take (role and name, label, placeholder, testid, text)", async () => {
    await open();
    const byRole = json<FindJson>(await ok("--json", "find", "role", "button", "--name", "save draft"));
    expect(byRole.total).toBe(1);
    expect(byRole.matches[0]).toMatchObject({ tag: "button", text: "Save draft" });
    expect(byRole.matches[0]!.ref).toMatch(/^e\d+$/);
    // The ref is the session's: a later command resolves it.
    await ok("click", byRole.matches[0]!.target);
    expect(await clicks()).toEqual(["clicked save-draft"]);

    expect(json<FindJson>(await ok("--json", "find", "role", "button")).total).toBe(3);
    expect(json<FindJson>(await ok("--json", "find", "label", "email")).matches[0]).toMatchObject({ tag: "input" });
    expect(json<FindJson>(await ok("--json", "find", "placeholder", "you@")).matches[0]).toMatchObject({ tag: "input" });
    expect(json<FindJson>(await ok("--json", "find", "testid", "save-btn")).matches[0]).toMatchObject({ tag: "button", text: "Save" });

    // An element without a ref (a heading) is named by a selector the other commands take.
    const heading = json<FindJson>(await ok("--json", "find", "role", "heading"));
    expect(heading.matches[0]!.target).toMatch(/^xpath=/);
    expect(await ok("get", "text", heading.matches[0]!.target)).toBe("Heading here");
    expect(await ok("find", "text", "Heading")).toMatch(/^xpath=\S+ {2}h2 "Heading here"$/);
  });

  it("runs the action on the one match; several matches fail naming how many unless --first/--nth/--exact picks one", async () => {
    await open();
    await ok("find", "label", "Email", "fill", "ada@example.com");
    expect(JSON.parse(await ok("eval", "document.getElementById('email').value"))).toBe("ada@example.com");

    expect(await fails(2, "find", "text", "Save", "click")).toMatch(/2 elements match, click needs one/);
    expect(await clicks()).toEqual([]);
    await ok("find", "text", "Save", "--exact", "click");
    await ok("find", "role", "button", "--name", "save", "--nth", "2", "click");
    await ok("find", "testid", "save-btn", "click");
    expect(await clicks()).toEqual(["clicked save", "clicked save-draft", "clicked save"]);
    await ok("find", "role", "checkbox", "--name", "News", "check");
    expect(JSON.parse(await ok("eval", "document.getElementById('news').checked"))).toBe(true);

    expect(await fails(6, "find", "text", "No such words")).toMatch(/find text "No such words": no element matches/);
    expect(await fails(6, "find", "role", "button", "--nth", "9")).toMatch(/--nth 9, but only 3 match/);
    expect(await fails(2, "find", "colour", "red")).toMatch(/unknown locator "colour"/);
    expect(await fails(2, "find", "text", "Save", "--name", "x")).toMatch(/--name applies to find role/);
    expect(await fails(2, "find", "text", "Save", "--nth", "0")).toMatch(/--nth must be a whole number/);
    expect(await fails(2, "find", "label", "Email", "fill")).toMatch(/the value is missing/);
    expect(await fails(2, "find", "label", "Email", "explode")).toMatch(/unknown action "explode"/);
  });

  it("role --name matches the name the snapshot derives for an icon-only control (icons.html)", async () => {
    await ok("goto", world.server.url("icons.html"));
    expect(await ok("snapshot", "-i")).toMatch(/^e\d+ button trash \(icon\)$/m);
    const trash = json<FindJson>(await ok("--json", "find", "role", "button", "--name", "trash"));
    expect(trash.total).toBe(1);
    expect(trash.matches[0]!.ref).toMatch(/^e\d+$/);
    await ok("find", "role", "button", "--name", "star border", "--exact", "click");
    expect(await ok("get", "text", "#result")).toBe("clicked: star");
    const snap = json<{ refs: Record<string, { role: string; name: string; derived?: boolean }> }>(await ok("--json", "snapshot", "-i"));
    expect(snap.refs[trash.matches[0]!.ref!]).toEqual({ role: "button", name: "trash", derived: true });
  });
});

describe("across frames (iframes.html: a same-origin and a cross-origin frame)", () => {
  it("counts inside a frame, gives a box in the top viewport, finds in every frame", async () => {
    await ok("goto", world.server.url("iframes.html"));
    expect(await ok("get", "count", "button")).toBe("1");
    expect(await ok("get", "count", "#cross-frame >> button")).toBe("1");
    expect(await ok("get", "count", "#cross-frame >> li")).toBe("0");

    // The box is where the top page shows the button: a press at its centre reaches it (same-origin frame), and
    // the cross-origin frame's button sits at the same place within its frame.
    type Box = { x: number; y: number; width: number; height: number };
    const box = async (sel: string) => json<Box>(await ok("get", "box", sel));
    const [same, sameButton, cross, crossButton] = [await box("#same-frame"), await box("#same-frame >> #child-button"), await box("#cross-frame"), await box("#cross-frame >> #child-button")];
    expect(sameButton.y).toBeGreaterThan(same.y);
    expect(sameButton.y + sameButton.height).toBeLessThan(same.y + same.height);
    expect(cross.y).toBeGreaterThan(same.y + same.height);
    expect([crossButton.x - cross.x, crossButton.y - cross.y]).toEqual([sameButton.x - same.x, sameButton.y - same.y]);
    await ok("mouse", "move", String(Math.round(sameButton.x + sameButton.width / 2)), String(Math.round(sameButton.y + sameButton.height / 2)));
    await ok("mouse", "down");
    await ok("mouse", "up");
    expect(await ok("get", "text", "#same-frame >> #child-result")).toBe("clicked: child-button");

    expect(json<FindJson>(await ok("--json", "find", "role", "button", "--name", "child button")).total).toBe(2);
    await ok("find", "label", "Child input", "--nth", "2", "fill", "from find");
    expect(await ok("get", "value", "#cross-frame >> #child-input")).toBe("from find");
    expect(await ok("get", "value", "#same-frame >> #child-input")).toBe("");
  });
});
