/**
 * The agent's search tool without Chrome: where the registry puts it (dom and hybrid, before done; never
 * without useSearch or a backend; not in cua mode), its argument schema (the search rules, derived by zod),
 * and what a run of it returns for the model (the ranked list once, a one-line summary, nothing to replay).
 */
import { describe, expect, it } from "vitest";
import { resolveAgentConfig, resolveExecuteOptions } from "../../src/agent/options.js";
import { toolsFor } from "../../src/agent/run.js";
import { searchListing, searchTool } from "../../src/agent/tools-search.js";
import { argsSchema, parseStep, type ToolEnv } from "../../src/agent/tools.js";
import type { SearchBackend, SearchResponse } from "../../src/platform/search.js";

const RESPONSE: SearchResponse = {
  query: "fern",
  requestId: "r1",
  results: [
    { id: "1", title: "Boston\u001b[31m Fern", url: "https://a.example/fern", author: null, favicon: null, image: null, publishedDate: "2024-05-06T07:08:09.000Z", snippet: "A lush fern." },
    { id: "2", title: "Ferns", url: "https://b.example/", author: null, favicon: null, image: null, publishedDate: null },
  ],
};

/** A backend that answers from memory and remembers what it was asked. */
function memoryBackend(answer: SearchResponse | Error): SearchBackend & { calls: Array<[string, number]> } {
  const calls: Array<[string, number]> = [];
  return {
    name: "memory",
    calls,
    async search(query, numResults) {
      calls.push([query, numResults]);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const names = (mode: "dom" | "hybrid" | "cua", useSearch: boolean, backend?: SearchBackend) => toolsFor(resolveAgentConfig({ mode }), resolveExecuteOptions({ instruction: "x", useSearch }), backend).map((t) => t.name);

describe("search tool in the registry", () => {
  it("is there with useSearch and a backend, in dom and hybrid mode, just before done", () => {
    const b = memoryBackend(RESPONSE);
    const dom = names("dom", true, b);
    expect(dom.slice(-2)).toEqual(["search", "done"]);
    expect(dom.filter((n) => n === "search")).toHaveLength(1);
    const hybrid = names("hybrid", true, b);
    expect(hybrid.slice(-2)).toEqual(["search", "done"]);
    expect(hybrid).toContain("clickAt");
  });

  it("is absent without useSearch, without a backend, and in cua mode", () => {
    const b = memoryBackend(RESPONSE);
    expect(names("dom", false, b)).not.toContain("search");
    expect(names("dom", true)).not.toContain("search");
    expect(names("cua", true, b)).not.toContain("search");
  });

  it("its arguments follow the search rules (the JSON Schema the model sees, and validation of its reply)", () => {
    const tool = searchTool(memoryBackend(RESPONSE));
    const schema = argsSchema(tool) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(schema.required).toEqual(["query"]);
    expect(schema.properties.query).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(schema.properties.numResults).toMatchObject({ type: "integer", minimum: 1, maximum: 25, default: 10 });
    expect(() => parseStep([tool], { reasoning: "r", tool: "search", args: { query: "" } }, undefined)).toThrow(/query: 1 to 200 characters/);
    expect(() => parseStep([tool], { reasoning: "r", tool: "search", args: { query: "x", numResults: 40 } }, undefined)).toThrow(/numResults: an integer 1 to 25 \(got 40\)/);
    expect(parseStep([tool], { reasoning: "r", tool: "search", args: { query: " fern " } }, undefined).args).toEqual({ query: "fern", numResults: 10 });
  });
});

describe("a search step", () => {
  const env = { signal: new AbortController().signal } as ToolEnv;

  it("gives the model the ranked list once, a one-line summary, and nothing to replay", async () => {
    const b = memoryBackend(RESPONSE);
    const out = await searchTool(b).run(env, { query: "fern", numResults: 2 });
    expect(b.calls).toEqual([["fern", 2]]);
    expect(out).toMatchObject({ ok: true, replay: [] });
    expect(out.summary).toBe('2 results for "fern"; first: Boston [31m Fern (https://a.example/fern)');
    expect(out.detail).toBe(['Results for "fern" (best first):', "1. Boston [31m Fern — https://a.example/fern (2024-05-06)", "   A lush fern.", "2. Ferns — https://b.example/"].join("\n"));
    expect(out.detail).not.toContain("\u001b");
  });

  it("no results says so; a backend error is thrown for the run to report", async () => {
    expect(searchListing({ query: "zzz", requestId: "r", results: [] })).toBe('No results for "zzz".');
    const none = await searchTool(memoryBackend({ query: "zzz", requestId: "r", results: [] })).run(env, { query: "zzz", numResults: 10 });
    expect(none).toMatchObject({ ok: true, summary: 'no results for "zzz"' });
    await expect(searchTool(memoryBackend(new Error("backend down"))).run(env, { query: "x", numResults: 1 })).rejects.toThrow("backend down");
  });
});
