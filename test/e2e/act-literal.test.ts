/**
 * Literal instructions on real Chrome: with no model they act and say `model: "none"`; anything else still needs the
 * model (MISSING_LLM_CONFIGURATION with none, having done nothing); with a model a literal act sends it nothing. Then
 * the fixture corpus: every element of manifest.json named literally must resolve to itself or nothing (a false match
 * fails); the share is printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "../../src/browser/page.js";
import { parseLiteral, resolveLiteral } from "../../src/operations/literal.js";
import { PageSnapshots } from "../../src/operations/snapshots.js";
import { useFixtureServer } from "../support/use-resource.js";
import { textIn, useService } from "../support/browser.js";
import { expectText, setEnv, useModelService, useModelWorld, useTempDirs } from "../support/models.js";
import { attribute, fixtureManifest, framePaths, type ManifestElement } from "../support/frame-paths.js";

const tempDir = useTempDirs();
let restoreEnv: () => void = () => {};
beforeAll(() => {
  // Nothing configured: no key in the environment, an empty config dir (no stored key or model).
  restoreEnv = setEnv({ OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, SVC_MODEL: undefined, SVC_MODEL_BASE_URL: undefined, SVC_CONFIG_DIR: tempDir() });
});
afterAll(() => restoreEnv());

describe("no model configured", () => {
  const server = useFixtureServer();
  const env = useService();
  const page = (): Page => env.svc.page;

  it("fills, types, checks, selects, clicks and presses with no model, and says model: none", async () => {
    await page().goto(server.url("forms.html"));
    const typed = await env.svc.act('type "Ada Lovelace" into the Full name field');
    expect(typed).toMatchObject({ success: true, model: "none", actionDescription: 'type "Ada Lovelace" into the Full name field' });
    expect(typed.actions).toEqual([{ selector: "xpath=/html/body/form/p[1]/input", description: 'textbox "Full name"', method: "type", arguments: ["Ada Lovelace"] }]);
    await expectText(page(), "#log", "name: Ada Lovelace");

    await env.svc.act('check the "Subscribe to newsletter" checkbox');
    await expectText(page(), "#log", "subscribe: true");
    await env.svc.act('select "France" from the Country list');
    await expectText(page(), "#log", "country: fr");
    await env.svc.act("check the Pro radio button");
    await expectText(page(), "#log", "plan-pro: true");

    // A variable's value reaches the page; the recorded action keeps the %name%.
    const filled = await env.svc.act('fill "Email" with "%mail%"', { variables: { mail: "ada@example.com" } });
    expect(filled.actions[0]!.arguments).toEqual(["%mail%"]);
    await expectText(page(), "#log", "email: ada@example.com");
    // Enter in the focused Email field submits the form.
    expect((await env.svc.act("press Enter")).model).toBe("none");
    expect(JSON.parse(await textIn(page(), "#result"))).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com", subscribe: true, plan: "pro", country: "fr" });

    await env.svc.act('click the "Help" link');
    await expectText(page(), "#log", "clicked: help-link");

    const acts = (await env.svc.history).filter((h) => h.method === "act");
    expect(acts.at(-1)!.result).toMatchObject({ success: true, model: "none" });
    expect((await env.svc.metrics).totalPromptTokens).toBe(0);
  });

  it.each([
    ["not of the literal form", "click the Save button at the top"],
    ["two buttons named Next", 'click the "Next" button'],
    ["a button and a link named Save", 'click "Save"'],
    ["no element named so", 'click the "Cancel" button'],
    ["a name only part of one option", 'select "Large" from the Size list'],
    ["a role-less clickable is no button", "click the Send button"],
  ])("%s: needs the model, fails with MISSING_LLM_CONFIGURATION, and did nothing", async (_why, instruction) => {
    await page().goto(server.url("literal.html"));
    const err = await env.svc.act(instruction).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "MISSING_LLM_CONFIGURATION" });
    expect(await textIn(page(), "#result")).toBe("");
  });

  it("the one element that fits is acted on, even beside others of the same name and another role", async () => {
    await page().goto(server.url("literal.html"));
    await env.svc.act("click the Save button");
    await expectText(page(), "#result", "clicked: save");
    await env.svc.act('select "Extra Large" from the Size dropdown');
    await expectText(page(), "#result", "size: xl");
  });
});

describe("with a model", () => {
  const world = useModelWorld();
  const env = useModelService(() => ({ model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-test", baseURL: world.fake.baseURL() } }));

  it("a literal act sends the model nothing; an ambiguous one asks it", async () => {
    await env.svc.page.goto(world.server.url("literal.html"));
    const before = world.fake.requests.length;
    expect(await env.svc.act("click the Save button")).toMatchObject({ success: true, model: "none" });
    expect(world.fake.requests.length).toBe(before);

    const asked = await env.svc.act('click the "Next" button');
    expect(asked.success).toBe(true);
    expect(asked.model).toBeUndefined();
    expect(world.fake.requestsFor("act")).toHaveLength(1);
  });
});


/** The literal instruction a person would write for an element of this role. */
function instructionFor(el: ManifestElement): string {
  const q = JSON.stringify(el.name);
  switch (el.role) {
    case "textbox":
    case "searchbox":
      return `type "x" into the ${q} field`;
    case "checkbox":
      return `check the ${q} checkbox`;
    case "radio":
      return `check the ${q} radio button`;
    case "combobox":
      return `click the ${q} dropdown`;
    case "button":
    case "link":
    case "tab":
    case "option":
      return `click the ${q} ${el.role}`;
    default:
      return `click ${q}`;
  }
}

describe("the fixture corpus (fixtures/pages/manifest.json)", () => {
  const server = useFixtureServer();
  const env = useService();
  const manifest = fixtureManifest();

  it("every element named literally resolves to itself or to nothing; never to another element", async () => {
    let steps = 0;
    let answered = 0;
    const wrong: string[] = [];
    const deferred: string[] = [];
    for (const entry of manifest.filter((e) => !e.generated)) {
      const p = env.svc.page;
      await p.goto(server.url(entry.page));
      const els = entry.elements.filter((e) => !e.hidden && !e.target && e.name);
      // Frames load after the main document: wait until the outline holds every listed element.
      const snapshots = new PageSnapshots();
      let refs = (await snapshots.take(p)).refs;
      for (let i = 0; i < 50 && !els.every((el) => refs.list().some((r) => r.name === el.name)); i++) refs = (await snapshots.take(p)).refs;
      const paths = await framePaths(p);
      for (const el of els) {
        steps++;
        const step = parseLiteral(instructionFor(el));
        const hit = step && resolveLiteral(refs, step);
        if (!hit) {
          deferred.push(`${entry.page}: ${el.role} ${instructionFor(el)}`);
          continue;
        }
        const same = paths.get(hit.frameId) === el.frame && (await attribute(p.frames.get(hit.frameId)!, hit.backendNodeId, "id")) === el.id;
        if (same) answered++;
        else wrong.push(`${entry.page}: ${instructionFor(el)} → ${hit.role} "${hit.name}" in ${paths.get(hit.frameId)}`);
      }
    }
    console.log(`literal corpus: ${steps} steps, ${answered} answered with no model (${Math.round((100 * answered) / steps)}%), ${wrong.length} false matches; to the model:\n${deferred.join("\n")}`);
    expect(wrong).toEqual([]);
    expect(answered).toBeGreaterThan(0);
  });
});
