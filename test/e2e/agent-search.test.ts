/**
 * The agent's search tool (useSearch) in real runs with a SearXNG-format stub: the model searches, reads the list,
 * opens a result and answers from the page. Without a backend the tool is absent and the run logs how to configure
 * one; the backend is resolved per run (searchUrl, else SVC_SEARCH_URL); a failing backend is an error line for the
 * model, not the end of the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_SEARCH_BACKEND } from "../../src/agent/tools-search.js";
import type { FakeRequest } from "../support/fake-model.js";
import { setEnv, useModelService, useModelWorld, withService, WIRES } from "../support/models.js";
import { searxResult, startStub, type Stub } from "../support/search-stub.js";
import { eventLog, scriptTimes, step, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const wire = WIRES[0]!;

let searx: Stub;
let refusing: Stub;
beforeAll(async () => {
  // Results point at the fixture site, so the agent can open them. Built per request: the fixture server's port is known by then.
  searx = await startStub((req) => {
    if (req.query.format !== "json") return { status: 403, text: "Forbidden" };
    const results = (req.query.pageno ?? "1") !== "1" ? [] : [
      searxResult(1, { url: world.server.url("site/item.html?id=fern"), title: "Boston Fern — Garden Shop", content: "A lush fern for shady rooms.", publishedDate: "2024-05-06T07:08:09" }),
      searxResult(2, { url: world.server.url("site/item.html?id=orchid"), title: "Orchid — Garden Shop", content: "An elegant flowering plant." }),
      searxResult(3, { url: "https://elsewhere.example/ferns", title: "All about ferns" }),
    ];
    return { json: { query: req.query.q, results } };
  });
  refusing = await startStub(() => ({ status: 403, text: "<html>Forbidden</html>" }));
});
afterAll(async () => {
  await Promise.all([searx?.close(), refusing?.close()]);
});

// No SVC_SEARCH_URL from the developer's shell: each test says which backend it has.
let restoreEnv: () => void = () => {};
beforeAll(() => {
  restoreEnv = setEnv({ SVC_SEARCH_URL: undefined });
});
afterAll(() => restoreEnv());

const env = useModelService(() => ({ model: wire.model(world.fake), searchUrl: searx.url }));

const toolNames = (req: FakeRequest): string[] => ((req.schema as { properties: { tool: { enum: string[] } } }).properties.tool.enum);

/** Search, then open the first result the list shows (read off the prompt, as a model would), then answer. */
function searchThenOpen(query: string): (req: FakeRequest) => Record<string, unknown> {
  return (req) => {
    const history = req.userText;
    if (!history.includes("Steps so far:")) return step("search", { query, numResults: 3 }, "find the plant's page");
    if (req.url?.includes("/site/item.html")) {
      const name = /^\s*h1 (.+)$/m.exec(req.snapshot)?.[1] ?? "?";
      return step("done", { message: `Found: ${name}`, success: true }, "the page is open");
    }
    const first = /Output of step \d+ \(search\):\n.*\n\s*1\. .+ — (https?:\/\/\S+)/.exec(history)?.[1];
    return first ? step("goto", { url: first }, "open the best result") : step("done", { message: "no result to open", success: false });
  };
}

describe("the search tool", () => {
  it("searches, shows the ranked list to the model once, and the run opens a result", async () => {
    await env.svc.page.goto("about:blank");
    scriptTimes(world.fake, searchThenOpen("boston fern"), 6);
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "Find the Boston Fern's page", useSearch: true });

    expect(result).toMatchObject({ success: true, completed: true, message: "Found: Boston Fern" });
    expect(env.svc.page.url()).toBe(world.server.url("site/item.html?id=fern"));
    expect(result.actions.map((a) => a.type)).toEqual(["search", "goto", "done"]);
    const search = result.actions[0]!;
    expect(search).toMatchObject({ ok: true, action: 'search "boston fern"', args: { query: "boston fern", numResults: 3 } });
    expect(search.result).toContain('3 results for "boston fern"; first: Boston Fern — Garden Shop');
    expect(search.pageText).toContain(`1. Boston Fern — Garden Shop — ${world.server.url("site/item.html?id=fern")} (2024-05-06)`);
    expect(search.pageText).toContain("   A lush fern for shady rooms.");
    expect(search.pageText).toContain("3. All about ferns — https://elsewhere.example/ferns");

    // The instance was asked through its JSON API.
    expect(searx.requests.map((r) => [r.path, r.query.q, r.query.format])).toEqual([["/search", "boston fern", "json"]]);

    // The model was offered the tool, saw the list once (the step after the search), then only the history line.
    const reqs = stepRequests(world.fake);
    expect(reqs).toHaveLength(3);
    expect(toolNames(reqs[0]!)).toContain("search");
    expect(reqs[0]!.systemText).toMatch(/^- search: search the web/m);
    expect(reqs[1]!.userText).toContain("Output of step 1 (search):");
    expect(reqs[1]!.userText).toContain("2. Orchid — Garden Shop");
    expect(reqs[2]!.userText).not.toContain("Output of step 1 (search):");
    expect(reqs[2]!.userText).toMatch(/1\. search \{"query":"boston fern","numResults":3\} → ok: 3 results/);

    const results = log.events.filter((e) => e.type === "tool_result");
    expect(results[0]).toMatchObject({ tool: "search", ok: true });
    expect(log.events.some((e) => e.type === "log")).toBe(false);
  });

  it("useSearch off: no search tool, though a backend is configured", async () => {
    scriptTimes(world.fake, step("done", { message: "nothing to do", success: true }), 1);
    const before = searx.requests.length;
    await env.svc.agent().execute({ instruction: "say hi" });
    const [req] = stepRequests(world.fake);
    expect(toolNames(req!)).not.toContain("search");
    expect(req!.systemText).not.toContain("- search:");
    expect(searx.requests.length).toBe(before);
  });

  it("hybrid mode has the tool too", async () => {
    scriptTimes(world.fake, step("done", { message: "ok", success: true }), 1);
    await env.svc.agent({ mode: "hybrid" }).execute({ instruction: "say hi", useSearch: true });
    const names = toolNames(stepRequests(world.fake)[0]!);
    expect(names).toContain("search");
    expect(names).toContain("clickAt");
    expect(names.at(-1)).toBe("done");
  });
});

describe("without a configured backend", () => {
  it("the tool is absent and the run logs how to configure one; SVC_SEARCH_URL adds it for the next run; a failing backend is an error line", async () => {
    await withService({ model: wire.model(world.fake) }, async (svc) => {
      await svc.page.goto(world.server.url("site/index.html"));

      // No backend: absent, one log line saying how to get one.
      scriptTimes(world.fake, step("done", { message: "cannot search", success: false }), 1);
      const agent = svc.agent();
      const log = eventLog();
      agent.subscribe(log.listener);
      await agent.execute({ instruction: "search the web for ferns", useSearch: true });
      expect(toolNames(stepRequests(world.fake)[0]!)).not.toContain("search");
      const logs = log.events.filter((e) => e.type === "log");
      expect(logs).toEqual([expect.objectContaining({ level: "info", message: NO_SEARCH_BACKEND })]);
      expect(NO_SEARCH_BACKEND).toMatch(/searchUrl or SVC_SEARCH_URL/);

      // SVC_SEARCH_URL, read when a run asks for search: the same Service now has the tool.
      world.fake.reset();
      const restore = setEnv({ SVC_SEARCH_URL: searx.url });
      try {
        const before = searx.requests.length;
        scriptTimes(world.fake, (req: FakeRequest) => (req.userText.includes("Steps so far:") ? step("done", { message: "searched", success: true }) : step("search", { query: "orchid", numResults: 3 })), 3);
        const r = await agent.execute({ instruction: "search the web for orchids", useSearch: true });
        expect(r.actions.map((a) => [a.type, a.ok])).toEqual([["search", true], ["done", true]]);
        expect(searx.requests.slice(before).map((x) => x.query.q)).toEqual(["orchid"]);
      } finally {
        restore();
      }

      // A backend that refuses JSON: the model gets the error line and the run goes on.
      world.fake.reset();
      const restore2 = setEnv({ SVC_SEARCH_URL: refusing.url });
      try {
        scriptTimes(world.fake, (req: FakeRequest) => (req.userText.includes("Steps so far:") ? step("done", { message: "search failed", success: false }) : step("search", { query: "orchid", numResults: 3 })), 3);
        const r = await agent.execute({ instruction: "search the web for orchids", useSearch: true });
        expect(r.actions[0]).toMatchObject({ type: "search", ok: false });
        expect(r.actions[0]!.result).toContain("formats: [html, json]");
        expect(stepRequests(world.fake)[1]!.userText).toMatch(/1\. search \{"query":"orchid","numResults":3\} → error: .*refuses JSON answers/);
        expect(r.metadata?.stopReason).toBe("done");
      } finally {
        restore2();
      }
    });
  });
});
