/**
 * The action cache: act MISS (model call, entry stored) then the same act HITs with no model request; variable values
 * do not matter, names do; a page that no longer matches falls back to the model and refreshes the entry. Also the
 * two-step dropdown replayed, a second Service on the same directory, and `enableCaching`. Through each wire format.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ActCacheEntry } from "../../src/cache/act-cache.js";
import { expectText, filesUnder, inPage, setEnv, useModelService, useModelWorld, useTempDirs, withService, WIRES } from "../support/models.js";

const world = useModelWorld();
const tempDir = useTempDirs();

/** The cache's entries, parsed. */
function entries(dir: string): ActCacheEntry[] {
  return filesUnder(dir)
    .filter((f) => f.path.endsWith(".json"))
    .map((f) => JSON.parse(f.text) as ActCacheEntry);
}

function entryFor(dir: string, instruction: string, url: string): ActCacheEntry | undefined {
  return entries(dir).find((e) => e.instruction === instruction && e.url === url);
}

// Renames the Submit button and adds another "Submit" button elsewhere (its click is reported in #log).
const RENAME_SUBMIT = `(() => {
  document.querySelector("#submit").textContent = "Send later";
  const b = document.createElement("button");
  b.type = "button"; b.id = "submit-new"; b.textContent = "Submit";
  b.addEventListener("click", () => { document.querySelector("#log").textContent = "clicked: submit-new"; });
  document.body.append(b);
  return true;
})()`;

// Removes the Help link and adds a new one elsewhere.
const MOVE_HELP = `(() => {
  document.querySelector("#help-link").remove();
  const a = document.createElement("a");
  a.id = "help-2"; a.href = "#help"; a.textContent = "Help";
  a.addEventListener("click", () => { document.querySelector("#log").textContent = "clicked: help-2"; });
  document.body.prepend(a);
  return true;
})()`;

describe.each(WIRES)("$label", (wire) => {
  let cacheDir = "";
  const env = useModelService(() => ({ model: wire.model(world.fake), cacheDir: (cacheDir = tempDir()) }));
  const page = () => env.svc.page;
  /** Each test gets its own URL (the query is part of the cache key), so entries never collide. */
  const open = (path: string) => page().goto(world.server.url(path));

  it("MISS stores the entry; the same act again is a HIT with zero model calls", async () => {
    const url = world.server.url("forms.html?case=hit");
    await open("forms.html?case=hit");
    const miss = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(miss).toMatchObject({ success: true, cacheStatus: "MISS" });
    await expectText(page(), "#log", "subscribe: true");
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]!.format).toBe(wire.format);

    const entry = entryFor(cacheDir, "please check the Subscribe to newsletter checkbox", url)!;
    expect(entry).toBeDefined();
    expect(entry.actions).toEqual([expect.objectContaining({ selector: miss.actions[0]!.selector, method: "click", arguments: [] })]);
    expect(entry.variableNames).toEqual([]);

    await open("forms.html?case=hit");
    const hit = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(hit).toMatchObject({ success: true, cacheStatus: "HIT", actionDescription: "please check the Subscribe to newsletter checkbox" });
    expect(hit.actions).toEqual(miss.actions);
    await expectText(page(), "#log", "subscribe: true");
    expect(world.fake.requests).toHaveLength(1);

    // The fragment is not part of the page's identity; the query is.
    await open("forms.html?case=hit#somewhere");
    expect((await env.svc.act("please check the Subscribe to newsletter checkbox")).cacheStatus).toBe("HIT");
    await open("forms.html?case=hit&other=1");
    expect((await env.svc.act("please check the Subscribe to newsletter checkbox")).cacheStatus).toBe("MISS");
    expect(world.fake.requests).toHaveLength(2);
    // HITs use no tokens: only the two MISSes were counted (this is the Service's first test).
    const metrics = await env.svc.metrics;
    expect(metrics.actPromptTokens).toBe(world.fake.requests.reduce((n, r) => n + r.response!.usage!.input, 0));
  });

  it("different variable values with the same names: still a HIT, with the new value typed", async () => {
    await open("forms.html?case=vars");
    const first = await env.svc.act("please type %email% into the Email field", { variables: { email: "first@example.com" } });
    expect(first.cacheStatus).toBe("MISS");
    expect(await page().locator("#email").inputValue()).toBe("first@example.com");

    await open("forms.html?case=vars");
    const second = await env.svc.act("please type %email% into the Email field", { variables: { email: { value: "second@example.com", description: "changed" } } });
    expect(second.cacheStatus).toBe("HIT");
    expect(await page().locator("#email").inputValue()).toBe("second@example.com");
    expect(world.fake.requests).toHaveLength(1);

    // The entry holds the reference, never a value.
    const text = filesUnder(cacheDir).map((f) => f.text).join("\n");
    expect(text).toContain('"%email%"');
    expect(text).not.toContain("first@example.com");
    expect(text).not.toContain("second@example.com");

    // Other variable names → another entry.
    const third = await env.svc.act("please type %email% into the Email field", { variables: { email: "third@example.com", extra: "x" } });
    expect(third.cacheStatus).toBe("MISS");
    expect(world.fake.requests).toHaveLength(2);
  });

  it("the element was renamed: MISS, a model call, and the entry now points at the new element", async () => {
    const url = world.server.url("forms.html?case=renamed");
    await open("forms.html?case=renamed");
    const miss = await env.svc.act("please click the Submit button");
    expect(miss.cacheStatus).toBe("MISS");
    expect(miss.actions[0]!.selector).toBe("xpath=/html/body/form/p[8]/button");

    await open("forms.html?case=renamed");
    await inPage(page(), RENAME_SUBMIT);
    const changed = await env.svc.act("please click the Submit button");
    expect(changed).toMatchObject({ success: true, cacheStatus: "MISS" });
    await expectText(page(), "#log", "clicked: submit-new");
    // The renamed button was not clicked on the way (the identity check comes before the replay).
    expect(await inPage(page(), `document.querySelector("#result").textContent`)).toBe("");
    expect(world.fake.requests).toHaveLength(2);
    expect(entryFor(cacheDir, "please click the Submit button", url)!.actions[0]!.selector).toBe(changed.actions[0]!.selector);
    expect(changed.actions[0]!.selector).toBe("xpath=/html/body/button");

    // The refreshed entry replays on the changed page.
    await open("forms.html?case=renamed");
    await inPage(page(), RENAME_SUBMIT);
    expect((await env.svc.act("please click the Submit button")).cacheStatus).toBe("HIT");
    await expectText(page(), "#log", "clicked: submit-new");
    expect(world.fake.requests).toHaveLength(2);
  });

  it("the element was removed: MISS and a model call", async () => {
    await open("forms.html?case=removed");
    expect((await env.svc.act("please click the Help link")).cacheStatus).toBe("MISS");
    await open("forms.html?case=removed");
    await inPage(page(), MOVE_HELP);
    const res = await env.svc.act("please click the Help link");
    expect(res.cacheStatus).toBe("MISS");
    await expectText(page(), "#log", "clicked: help-2");
    expect(world.fake.requests).toHaveLength(2);
  });

  it("a two-step dropdown is cached as two actions and replayed with no model call", async () => {
    await open("dropdown.html?case=two-step");
    const miss = await env.svc.act("choose Cherry from the fruit dropdown");
    expect(miss.cacheStatus).toBe("MISS");
    expect(miss.actions).toHaveLength(2);
    await expectText(page(), "#custom-value", "Cherry");
    expect(world.fake.requests).toHaveLength(2);

    await open("dropdown.html?case=two-step");
    const hit = await env.svc.act("choose Cherry from the fruit dropdown");
    expect(hit.cacheStatus).toBe("HIT");
    await expectText(page(), "#custom-value", "Cherry");
    expect(world.fake.requests).toHaveLength(2);
  });

  it("a failed act (no element fits) is not cached", async () => {
    await open("forms.html?case=nothing");
    world.fake.script({ ref: "", method: "click", arguments: [], description: "nothing like that here", twoStep: false });
    const res = await env.svc.act("please click the Launch rocket button");
    expect(res).toMatchObject({ success: false, cacheStatus: "MISS" });
    await env.svc.act("please click the Launch rocket button").catch(() => undefined);
    expect(world.fake.requests).toHaveLength(2);
  });
});

describe("across Service instances and the older-generation enableCaching", () => {
  it("a second Service with the same cacheDir replays with zero model calls", async () => {
    const cacheDir = tempDir();
    const model = WIRES[0]!.model(world.fake);
    const url = world.server.url("forms.html?case=instances");
    await withService({ model, cacheDir }, async (svc) => {
      await svc.page.goto(url);
      expect((await svc.act("please check the Subscribe to newsletter checkbox")).cacheStatus).toBe("MISS");
    });
    await withService({ model, cacheDir }, async (svc) => {
      await svc.page.goto(url);
      expect((await svc.act("please check the Subscribe to newsletter checkbox")).cacheStatus).toBe("HIT");
      await expectText(svc.page, "#log", "subscribe: true");
    });
    expect(world.fake.requests).toHaveLength(1);
  });

  it("enableCaching: true stores under $XDG_CACHE_HOME/svc/actions; without it no cache is used", async () => {
    const xdg = tempDir();
    const restore = setEnv({ XDG_CACHE_HOME: xdg });
    try {
      const model = WIRES[2]!.model(world.fake);
      await withService({ model, enableCaching: true }, async (svc) => {
        await svc.page.goto(world.server.url("forms.html?case=legacy"));
        expect((await svc.act("please click the Help link")).cacheStatus).toBe("MISS");
        await svc.page.goto(world.server.url("forms.html?case=legacy"));
        expect((await svc.act("please click the Help link")).cacheStatus).toBe("HIT");
        expect(world.fake.requests).toHaveLength(1);
        const stored = entries(join(xdg, "svc", "actions"));
        expect(stored).toHaveLength(1);
        expect(stored[0]!.instruction).toBe("please click the Help link");
        expect(JSON.parse(readFileSync(filesUnder(join(xdg, "svc", "actions"))[0]!.path, "utf8")).version).toBe(1);
      });
      await withService({ model, enableCaching: false }, async (svc) => {
        await svc.page.goto(world.server.url("forms.html?case=legacy"));
        const res = await svc.act("please click the Help link");
        expect(res.cacheStatus).toBeUndefined();
        expect(world.fake.requests).toHaveLength(2);
      });
    } finally {
      restore();
    }
  });
});
