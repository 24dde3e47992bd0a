/**
 * The library reads the CLI's model settings (SVC_MODEL, SVC_MODEL_BASE_URL, the stored `svc config` file)
 * when no model option is given, explicit options win, and its stderr stays quiet by default.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Service } from "../../src/service.js";
import { CHROMIUM, makeService, textIn } from "../support/browser.js";
import { useModelWorld } from "../support/models.js";

const world = useModelWorld();
// The settings are read by each new Service; which Chrome it drives does not matter: one for the file,
// each test's Service attaches to it (cdpUrl) and disconnects when closed.
let host: Service | undefined;
let cdpUrl = "";
beforeAll(async () => {
  host = makeService({ localBrowserLaunchOptions: { executablePath: CHROMIUM } });
  cdpUrl = (await host.init()).sessionUrl;
});
afterAll(async () => {
  await host?.close({ force: true });
});
const VARS = ["SVC_MODEL", "SVC_MODEL_BASE_URL", "SVC_CONFIG_DIR", "OPENAI_API_KEY", "SVC_VERBOSE"] as const;
let saved: Record<string, string | undefined> = {};
let configDir = "";

beforeEach(() => {
  saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
  for (const k of VARS) delete process.env[k];
  configDir = mkdtempSync(join(tmpdir(), "svc-lib-settings-"));
  process.env.SVC_CONFIG_DIR = configDir;
});
afterEach(() => {
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  rmSync(configDir, { recursive: true, force: true });
});

/** `new Service(options)` (on the file's Chrome) fills the form's name field through act() and is closed. */
async function actWith(options: ConstructorParameters<typeof Service>[0] = {}): Promise<void> {
  const svc = new Service({ verbose: 0, ...options, localBrowserLaunchOptions: { cdpUrl } });
  try {
    await svc.init();
    await svc.page.goto(world.server.url("forms.html"));
    const r = await svc.act('please type "Ada Lovelace" into the Full name field');
    expect(r.success).toBe(true);
    expect(await textIn(svc.page, "#log")).toContain("name: Ada Lovelace");
  } finally {
    await svc.close();
  }
}

describe("new Service() with no model option", () => {
  it("uses SVC_MODEL and SVC_MODEL_BASE_URL as the CLI does", async () => {
    process.env.SVC_MODEL = "qwen-env";
    process.env.SVC_MODEL_BASE_URL = world.fake.baseURL();
    await actWith();
    const [req] = world.fake.requestsFor("act");
    expect(req?.model).toBe("qwen-env");
  });

  it("uses the stored `svc config` model and base URL", async () => {
    writeFileSync(join(configDir, "config.json"), JSON.stringify({ model: { name: "qwen-stored", baseURL: world.fake.baseURL() } }), { mode: 0o600 });
    await actWith();
    expect(world.fake.requestsFor("act")[0]?.model).toBe("qwen-stored");
  });

  it("an explicit model option wins over the settings", async () => {
    process.env.SVC_MODEL = "qwen-env";
    process.env.SVC_MODEL_BASE_URL = "http://127.0.0.1:9/v1";
    await actWith({ model: { modelName: "qwen-explicit", baseURL: world.fake.baseURL() } });
    expect(world.fake.requestsFor("act")[0]?.model).toBe("qwen-explicit");
  });

  it("a malformed SVC_MODEL_BASE_URL fails the call naming the variable", async () => {
    process.env.SVC_MODEL_BASE_URL = "not a url";
    const svc = new Service({ verbose: 0, localBrowserLaunchOptions: { cdpUrl } });
    try {
      await svc.init();
      await expect(svc.act("click the button")).rejects.toThrow(/SVC_MODEL_BASE_URL must be an http\(s\) URL/);
    } finally {
      await svc.close();
    }
  });
});

describe("the library's stderr", () => {
  // Launching: Chrome's own stderr must not reach the library's. Attached to the file's Chrome (the
  // verbose runs, whose log says "starting browser" either way): what the library itself writes.
  const script = (verbose: string, launch = true) => `
    const { Service } = await import(${JSON.stringify(new URL("../../dist/src/index.js", import.meta.url).href)});
    const svc = new Service({ ${verbose} localBrowserLaunchOptions: ${JSON.stringify(launch ? { headless: true, executablePath: CHROMIUM } : { cdpUrl })} });
    await svc.init();
    await svc.page.goto("about:blank");
    await svc.close();
    console.log("done");`;
  const run = (verbose: string, env: Record<string, string> = {}, launch = true) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script(verbose, launch)], { encoding: "utf8", timeout: 60_000, env: { ...process.env, SVC_VERBOSE: "", ...env } });

  it("is empty by default", () => {
    const r = run("");
    expect(r.stdout.trim()).toBe("done");
    expect(r.stderr).toBe("");
  });

  it("says what happens with SVC_VERBOSE=1 or verbose: 1", () => {
    expect(run("", { SVC_VERBOSE: "1" }, false).stderr).toContain("[svc:init] starting browser");
    expect(run("verbose: 1,", {}, false).stderr).toContain("[svc:init] starting browser");
  });
});
