/**
 * extract() with a zod schema through each wire format: URL fields shown to the model as link refs come back as
 * absolute URLs (relative, fragment, external, shadow DOM); a misfit reply is retried once with the problem, a second
 * is an LLMResponseError; the older extract(options) form with selector, modelName and modelClientOptions.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LLMResponseError } from "../../src/errors.js";
import type { FakeRequest } from "../support/fake-model.js";
import { elementsOf, inPage, refOf, useModelService, useModelWorld, WIRES } from "../support/models.js";

const world = useModelWorld();

const Links = z.object({ links: z.array(z.object({ text: z.string(), url: z.url() })) });

// Links of every kind, added to forms.html: root-relative, relative with a fragment, external with a
// query, and one inside an open shadow root.
const ADD_LINKS = `(() => {
  const nav = document.createElement("nav");
  nav.id = "more-links";
  nav.setAttribute("aria-label", "More links");
  nav.innerHTML = '<a href="/docs/guide.html">Guide</a> <a href="frame-child.html#top">Child page</a> <a href="https://example.com/about?x=1">About us</a> <span id="shadow-links"></span>';
  document.body.prepend(nav);
  const root = nav.querySelector("#shadow-links").attachShadow({ mode: "open" });
  root.innerHTML = '<a href="../shadow/deep.html">Shadow link</a>';
  return true;
})()`;

/** The reply a good model gives: every link of the outline, by ref. */
const allLinks = (req: FakeRequest) => ({ links: elementsOf(req, "link").map((l) => ({ text: l.name, url: l.ref })) });

describe.each(WIRES)("$label", (wire) => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const page = () => env.svc.page;
  let origin: string;

  beforeEach(async () => {
    await page().goto(world.server.url("forms.html"));
    await inPage(page(), ADD_LINKS);
    origin = new URL(world.server.url("/")).origin;
  });

  it("URL fields: the model names refs, the result has real absolute URLs", async () => {
    world.fake.script(allLinks);
    const result = await env.svc.extract("list every link on the page", Links);
    expect(result).toEqual({
      links: [
        { text: "Guide", url: `${origin}/docs/guide.html` },
        { text: "Child page", url: `${origin}/frame-child.html#top` },
        { text: "About us", url: "https://example.com/about?x=1" },
        { text: "Shadow link", url: `${origin}/shadow/deep.html` },
        { text: "Help", url: `${origin}/forms.html#help` },
      ],
    });
    for (const l of result.links) expect(() => new URL(l.url)).not.toThrow();

    // What the model was asked for: the JSON Schema derived by zod, with the URL field turned into a ref field.
    const [req] = world.fake.requestsFor("extract");
    expect(world.fake.requests).toHaveLength(1);
    expect(req!.format).toBe(wire.format);
    const item = (req!.schema as any).properties.links.items;
    expect(item.properties.text).toEqual({ type: "string" });
    expect(item.properties.url.type).toBe("string");
    expect(item.properties.url.format).toBeUndefined();
    expect(item.properties.url.description).toMatch(/ref of the link/);
    expect(req!.systemText).toMatch(/answer with the ref of the link element/);
    // No absolute URL of a link was needed in the prompt: the model only copied refs.
    expect(JSON.stringify(req!.response!.text)).not.toContain("example.com");
  });

  it("automatic answer: a single URL field comes back as the link's address", async () => {
    const help = await env.svc.extract("get the Help link", z.object({ help: z.object({ text: z.string(), url: z.url() }) }));
    expect(help.help.url).toBe(`${origin}/forms.html#help`);
    expect(world.fake.requests).toHaveLength(1);
  });

  it("a misfit reply is retried once with the validation problem, then succeeds", async () => {
    world.fake.script({ links: "none to speak of" }, allLinks);
    const result = await env.svc.extract("list every link on the page", Links);
    expect(result.links).toHaveLength(5);
    expect(world.fake.requests).toHaveLength(2);
    const [, retry] = world.fake.requests;
    expect(retry!.userText).toMatch(/did not fit the schema: links: .+Answer again with a corrected JSON object/);
    // The retry carries the first reply back as the assistant's turn.
    expect(retry!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(retry!.messages[1]!.text).toContain("none to speak of");
  });

  it("a URL field naming something that is not a link is a misfit too", async () => {
    world.fake.script((req) => ({ links: [{ text: "Submit", url: refOf(req, "button", "Submit") }] }), allLinks);
    const result = await env.svc.extract("list every link on the page", Links);
    expect(result.links.map((l) => l.text)).toContain("Guide");
    expect(world.fake.requests).toHaveLength(2);
    expect(world.fake.requests[1]!.userText).toMatch(/is not a link on the page/);
  });

  it("two misfits: LLMResponseError, no third call", async () => {
    world.fake.script({ links: [{ text: 1 }] }, { nothing: true });
    const err = await env.svc.extract("list every link on the page", Links).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMResponseError);
    expect((err as Error).message).toMatch(/unusable twice/);
    expect(world.fake.requests).toHaveLength(2);
  });

  it("a non-object schema is wrapped for the model and unwrapped for the caller", async () => {
    world.fake.script((req) => ({ value: elementsOf(req, "link").map((l) => l.ref) }));
    const urls = await env.svc.extract("the addresses of all links", z.array(z.url()));
    expect(urls).toContain("https://example.com/about?x=1");
    expect(urls).toContain(`${origin}/docs/guide.html`);
  });

  it("older-generation extract(options): selector scopes the snapshot, modelName + modelClientOptions pick the model", async () => {
    const { modelName, apiKey, baseURL } = wire.model(world.fake);
    world.fake.script(allLinks);
    const result = (await env.svc.extract({ instruction: "list the links", schema: Links, selector: "#more-links", modelName, modelClientOptions: { apiKey, baseURL } })) as z.infer<typeof Links>;
    expect(result.links.map((l) => l.text)).toEqual(["Guide", "Child page", "About us", "Shadow link"]);
    const [req] = world.fake.requests;
    // The older generation has no endpoint-format option: OpenAI models go through the default (Responses).
    expect(req!.format).toBe(wire.format === "chat" ? "responses" : wire.format);
    expect(JSON.stringify(req!.headers)).toContain(apiKey);
    expect(req!.snapshot).not.toContain("Full name");
    expect(req!.snapshot).not.toContain("Help");
    const history = await env.svc.history;
    expect(history.at(-1)).toMatchObject({ method: "extract", parameters: { instruction: "list the links", schema: true, selector: "#more-links" } });
  });
});

describe("older-generation modelClientOptions names (docs/wire-formats.md, Older generation)", () => {
  const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake) }));

  it("api_base, temperature and maxTokens are accepted", async () => {
    await env.svc.page.goto(world.server.url("forms.html"));
    const result = await env.svc.extract({
      instruction: "what does the help text say",
      modelName: "openai/gpt-legacy",
      modelClientOptions: { apiKey: "sk-legacy-key", api_base: world.fake.baseURL(), temperature: 0.2, maxTokens: 300 },
    });
    expect(result).toEqual({ extraction: expect.stringContaining("Help: fill in the form") });
    const [req] = world.fake.requests;
    expect(req!.model).toBe("gpt-legacy");
    expect(req!.headers.authorization).toBe("Bearer sk-legacy-key");
    expect(req!.body.temperature).toBe(0.2);
    expect(req!.body.max_output_tokens).toBe(300);
  });

  it("a bare older-generation model name (gpt-4o) is accepted with api_base", async () => {
    await env.svc.page.goto(world.server.url("forms.html"));
    await env.svc.extract({ instruction: "what does the help text say", modelName: "gpt-4o", modelClientOptions: { apiKey: "sk-legacy-key", api_base: world.fake.baseURL() } });
    expect(world.fake.requests[0]!.model).toBe("gpt-4o");
  });
});
