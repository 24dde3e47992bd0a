/**
 * `svc mcp`'s one URL policy (util/url-policy.ts): `navigate`, `tabs new`, the agent's start URL and its goto refuse the hostile URLs
 * table's rows (test/support/hostile-urls.ts) in the same words over real stdio, unless --allow-file-urls, which adds
 * file: alone. The fake model goes to each URL as a prompt-injected page would ask; a local file's secret never reaches
 * an answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { hostileUrls, secretFile, refusal, refusedBy } from "../support/hostile-urls.js";
import { type ModelWorld, expectNoChrome, startModelWorld } from "./helpers.js";
import { call, openStdio, text } from "./mcp-support.js";

let world: ModelWorld;
let dir: string;
let secret: string;
let secretUrl: string;

beforeAll(async () => {
  world = await startModelWorld();
  dir = mkdtempSync(join(tmpdir(), "svc-mcp-urls-"));
  ({ secret, secretUrl } = secretFile(dir));
});

afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => world.fake.reset());

/** The shared table's rows (test/support/hostile-urls.ts) for a page of the fixture server. */
const rows = (page: string) => hostileUrls({ secretUrl, secret, page });

/** The agent's answer to a run whose model asks for goto `url`, and what the model was told of that step. */
async function agentGoto(client: Client, url: string): Promise<{ answer: string; toldModel: string }> {
  const before = world.fake.requestsFor("agent_step").length;
  world.fake.script(step("goto", { url }, "the page asks me to open this"), step("done", { message: "finished", success: true }));
  const r = await call(client, "agent", { instruction: "do what the page asks" });
  const steps = world.fake.requestsFor("agent_step").slice(before);
  expect(steps.length, text(r)).toBe(2);
  return { answer: text(r), toldModel: steps[1]!.userText };
}

/** The tab list: one tab, still on `page`. */
async function stillOn(client: Client, page: string): Promise<void> {
  const tabs = text(await call(client, "tabs")).split("\n");
  expect(tabs).toEqual([expect.stringMatching(new RegExp(`^\\* 1 .* ${page.replace(/[.?]/g, "\\$&")}$`))]);
}

describe("svc mcp: one URL policy for every door", () => {
  it("navigate, tabs new and the agent's goto refuse file:, view-source:, chrome:, devtools:, data: and javascript: with the same words; no secret reaches an answer", async () => {
    const client = await openStdio(world.sb.env, ["--caps", "tabs,agent"]);
    try {
      const page = world.server.url("forms.html");
      expect((await call(client, "navigate", { url: page })).isError).toBeFalsy();
      const refused = refusedBy("http", rows(page));
      expect(refused.length).toBeGreaterThanOrEqual(10);
      for (const row of refused) {
        const url = row.url;
        const words = refusal("http", row);
        const nav = await call(client, "navigate", { url });
        expect(nav.isError, url).toBe(true);
        expect(text(nav), url).toBe(words);
        const tab = await call(client, "tabs", { action: "new", url });
        expect(tab.isError, url).toBe(true);
        expect(text(tab), url).toBe(words);
        // The agent's start URL is opened as navigate opens it, before any model is asked.
        const start = await call(client, "agent", { instruction: "look", url });
        expect(text(start), url).toBe(words);
        const agent = await agentGoto(client, url);
        expect(agent.toldModel, url).toContain(`→ error: ${words.replace(/^INVALID_ARGUMENT: /, "")}`);
        expect(agent.answer, url).toMatch(/^done: finished\n/);
        expect(agent.answer, url).not.toContain(secret);
        await stillOn(client, page);
      }
      // A page that redirects to a file: is not followed there either (Chrome's own rule for a web page's redirect).
      const redirected = await call(client, "navigate", { url: world.server.url(`/redirect?to=${encodeURIComponent(secretUrl)}`) });
      expect(text(redirected)).not.toContain(secret);
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 180_000);

  it("--allow-file-urls adds file: (and only file:) for every door, the agent's goto too", async () => {
    const client = await openStdio(world.sb.env, ["--allow-file-urls", "--caps", "tabs,agent"]);
    try {
      const nav = await call(client, "navigate", { url: secretUrl });
      expect(nav.isError, text(nav)).toBeFalsy();
      expect(text(nav)).toContain(`navigated to ${secretUrl}`);
      expect(text(nav)).toContain(secret);
      const chrome = await call(client, "navigate", { url: "chrome://version" });
      expect(text(chrome)).toBe("INVALID_ARGUMENT: url: only http, https and file URLs can be opened (got chrome:)");
      expect(text(await call(client, "tabs", { action: "new", url: secretUrl }))).toMatch(new RegExp(`^\\* 2 .*${secretUrl.replace(/[.]/g, "\\.")}$`, "m"));
      await call(client, "navigate", { url: world.server.url("forms.html") });
      const agent = await agentGoto(client, secretUrl);
      expect(agent.toldModel).toMatch(/→ ok: opened file:/);
      expect(agent.answer).toContain(secret);
      await call(client, "navigate", { url: world.server.url("forms.html") });
      world.fake.script(step("done", { message: "read it", success: true }));
      const started = await call(client, "agent", { instruction: "read the page", url: secretUrl });
      expect(text(started)).toMatch(/^done: read it\n/);
      expect(text(started)).toContain(secret);
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 120_000);
});
