/**
 * The CLI's doors that open a page, against the one table of hostile URLs (test/support/hostile-urls.ts), through the
 * built `svc` on a live session in real Chrome, each under its policy (docs/isolation.md): a refused row is exit 2 with
 * `--json`'s `INVALID_ARGUMENT` and the table's words, and the tab stays on its page. The agent's goto is asked by the
 * fake model, as an injected page would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UrlPolicy } from "../../src/util/url-policy.js";
import { step } from "../e2e/agent-support.js";
import { hostileUrls, secretFile, refusal, refusedBy, type HostileUrl } from "../support/hostile-urls.js";
import { liveNavigate, liveSocket } from "../support/live-view.js";
import { type ModelWorld, expectNoChrome, json, startModelWorld, svc } from "./helpers.js";

let world: ModelWorld;
let dir: string;
let secret: string;
let secretUrl: string;

beforeAll(async () => {
  world = await startModelWorld();
  dir = mkdtempSync(join(tmpdir(), "svc-cli-urls-"));
  ({ secret, secretUrl } = secretFile(dir));
}, 60_000);

afterAll(async () => {
  if (world) await svc(["sessions", "end", "--all"], world.sb.env).catch(() => undefined);
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const rows = () => hostileUrls({ secretUrl, secret, page: world.server.url("forms.html") });

/** `svc --json ARGS`'s refusal: exit 2 and its error as one line (code, then message; a hint the CLI adds after it left off). */
async function refusedLine(args: string[]): Promise<string> {
  const r = await svc(["--json", ...args], world.sb.env);
  expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(2);
  const error = json<{ ok: boolean; error: { code: string; message: string } }>(r.stdout).error;
  return `${error.code}: ${error.message.replace(/ \(hint: [^)]*\)$/, "")}`;
}

/** Where the session's tabs are, and whether anything of a row (the secret) reached the selected one. */
async function where(): Promise<{ tabs: number; href: string; leaked: boolean }> {
  const seen = json<{ result: { href: string; all: string } }>((await svc(["--json", "eval", "({ href: location.href, all: document.title + document.documentElement.outerHTML })"], world.sb.env)).stdout).result;
  const tabs = (await svc(["tabs"], world.sb.env)).stdout.trim().split("\n");
  return { tabs: tabs.length, href: seen.href, leaked: seen.all.includes(secret) };
}

/** What the model was told of an agent run's goto `row.url` step. */
async function agentGoto(row: HostileUrl, i: number): Promise<string> {
  world.fake.reset();
  world.fake.script(step("goto", { url: row.url }, "the page asks me to open this"), step("done", { message: "finished", success: true }));
  const r = await svc(["agent", `do what the page asks (${i})`], world.sb.env);
  expect(r.code, r.stderr).toBe(0);
  const steps = world.fake.requestsFor("agent_step");
  expect(steps.length, row.url).toBe(2);
  return steps[1]!.userText;
}

describe("svc: one URL policy on every command that opens a page", () => {
  it("goto, open, tabs new, snapshot, screenshot, extract and agent (--url and its goto) refuse what \"any\" refuses; fetch what \"http\" does; svc view what \"web\" does", async () => {
    const page = world.server.url("forms.html");
    expect((await svc(["sessions", "start", "--idle-timeout", "120"], world.sb.env)).code).toBe(0);
    expect((await svc(["goto", page], world.sb.env)).code).toBe(0);
    const policy: UrlPolicy = "any";
    const refused = refusedBy(policy, rows());
    expect(refused.length).toBeGreaterThanOrEqual(8);
    for (const [i, row] of refused.entries()) {
      const words = refusal(policy, row);
      for (const args of [["goto", row.url], ["open", row.url], ["tabs", "new", row.url], ["snapshot", row.url], ["screenshot", row.url], ["extract", row.url, "the heading"], ["agent", "--url", row.url, "read it"]]) {
        expect(await refusedLine(args), args.join(" ")).toBe(words);
      }
      expect(await agentGoto(row, i), row.url).toContain(`→ error: ${words.replace(/^INVALID_ARGUMENT: /, "")}`);
      expect(await where(), row.url).toEqual({ tabs: 1, href: page, leaked: false });
    }
    for (const row of refusedBy("http", rows())) expect(await refusedLine(["fetch", row.url]), row.url).toBe(refusal("http", row));

    const view = await liveSocket(json<{ url: string }>((await svc(["--json", "view"], world.sb.env)).stdout).url);
    try {
      for (const row of refusedBy("web", rows())) {
        expect(await liveNavigate(view, row.url), row.url).toEqual([refusal("web", row)]);
        expect(await where(), row.url).toEqual({ tabs: 1, href: page, leaked: false });
      }
    } finally {
      view.ws.close();
    }
    expect((await svc(["sessions", "end", "--all"], world.sb.env)).code).toBe(0);
    await expectNoChrome(world.sb.tmp);
  }, 300_000);
});
