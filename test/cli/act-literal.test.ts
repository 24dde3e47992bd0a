/**
 * Issue 43 through the built bin (`node bin/svc.js`) with nothing configured: no key in the environment, no
 * SVC_* setting, an empty HOME, state and config dir. A literal `svc act` runs on the README's page and says
 * `model: none`; a command that needs a model exits 9 at once, naming the local presets and `svc init`, and no
 * Chrome is ever started for it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, assertBuilt, chromeProcessesOf, collect, expectOneLine, json, sandbox, spawnSvc } from "./helpers.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let server: FixtureServer;

beforeAll(async () => {
  assertBuilt();
  sb = sandbox();
  server = await startFixtureServer();
  // Nothing a model could be configured by: every *_API_KEY, every SVC_ setting but the sandbox's own dirs.
  env = Object.fromEntries(Object.entries(sb.env).filter(([k]) => !/_API_KEY$|^SVC_|^AZURE_|^GOOGLE_|^XDG_/.test(k) || k === "SVC_STATE_DIR" || k === "SVC_CONFIG_DIR" || k === "SVC_TEST_MARK"));
  env.HOME = join(sb.tmp, "home");
}, 60_000);

afterAll(async () => {
  await collect(spawnSvc(["sessions", "end", "--all"], env)).catch(() => undefined);
  sb?.cleanup();
  await server?.close();
});

/** Runs the bin; meanwhile looks for a Chrome started under the sandbox's mark, every 50 ms. */
async function runWatchingChrome(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; sawChrome: boolean }> {
  const child = spawnSvc(args, env);
  let sawChrome = false;
  const watch = setInterval(() => {
    if (chromeProcessesOf(sb.tmp).length) sawChrome = true;
  }, 50);
  try {
    const r = await collect(child, 60_000);
    return { ...r, sawChrome };
  } finally {
    clearInterval(watch);
  }
}

describe("with nothing configured", () => {
  // First, while no session (no Chrome) exists: a Chrome seen is one the command started.
  it.each([
    ["extract with an instruction", (url: string) => ["extract", "the heading", url]],
    ["observe", () => ["observe", "the buttons"]],
    ["act with an instruction that is not literal", () => ["act", "sign me up for news"]],
    ["agent", (url: string) => ["agent", "find the heading", "--url", url]],
  ])("%s exits 9 before any Chrome starts, naming a key, the local presets and svc init", async (_what, args) => {
    const r = await runWatchingChrome(args(server.url("forms.html")));
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toMatch(/OPENAI_API_KEY/);
    expect(r.stderr).toMatch(/ollama\//);
    expect(r.stderr).toMatch(/svc init/);
    expect(r.sawChrome).toBe(false);
  });

  it("svc act with a literal instruction acts on the README's page and reports model: none", async () => {
    const page = join(sb.tmp, "signup.html");
    writeFileSync(page, '<title>Sign up</title><h1>Sign up</h1><label>Full name <input id="name"></label>\n<label><input type="checkbox"> Send me news</label> <button>Send</button>\n');
    const opened = await collect(spawnSvc(["open", `file://${page}`], env));
    expect(opened.code, opened.stderr).toBe(0);

    const typed = await collect(spawnSvc(["--json", "act", 'type "Ada Lovelace" into the Full name field'], env));
    expect(typed.code, typed.stderr).toBe(0);
    expect(json(typed.stdout)).toMatchObject({ ok: true, model: "none", result: { success: true, model: "none", actions: [{ method: "type", arguments: ["Ada Lovelace"] }] } });

    const clicked = await collect(spawnSvc(["act", 'click the "Send" button'], env));
    expect(clicked.code, clicked.stderr).toBe(0);
    expect(clicked.stdout).toContain("model: none");

    const value = await collect(spawnSvc(["get", "value", "#name"], env));
    expect(value.stdout.trim()).toBe("Ada Lovelace");
    const history = await collect(spawnSvc(["--json", "history"], env));
    const acts = (json(history.stdout) as { entries: Array<{ method: string; result?: { model?: string } }> }).entries.filter((e) => e.method === "act");
    expect(acts.map((a) => a.result?.model)).toEqual(["none", "none"]);

    // Not literal: the model is needed, and there is none (the session's Chrome is already up: only the code is checked).
    const needs = await collect(spawnSvc(["act", "sign me up for news"], env));
    expect(needs.code).toBe(9);
    // Literal, but naming no element of the page: the act falls back to the model, and the missing key is said
    // in the CLI's words (the shell's variable, the local presets), as for an act that was never literal.
    const fallback = await collect(spawnSvc(["act", 'click the "Frobnicate" button'], env));
    expect(fallback.code, fallback.stderr).toBe(9);
    expect(expectOneLine(fallback.stderr)).toMatch(/OPENAI_API_KEY is not set: no API key for openai \(hint: export OPENAI_API_KEY=<key>.*ollama\//);
  });

});
