/**
 * `svc init` in a real pseudo-terminal (Python's pty module drives it: Node has no built-in pty): the
 * API key is typed into a masked prompt, never echoed, and lands in the 0600 config file with the
 * launch defaults.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, BIN, PTY_DRIVER, assertBuilt, hasPython, sandbox } from "./helpers.js";

describe.skipIf(!hasPython)("svc init (interactive)", () => {
  let sb: Sandbox;
  /** `svc init` in the pty, answering each prompt as it appears; its exit code and what the terminal showed. */
  const runInit = async (answers: [string, string][]): Promise<{ code: number | null; out: string }> => {
    const child = spawn("python3", ["-c", PTY_DRIVER, JSON.stringify([process.execPath, BIN, "init"]), JSON.stringify(answers)], { env: sb.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const code = await new Promise<number | null>((r) => child.on("close", r));
    return { code, out };
  };
  beforeEach(() => {
    assertBuilt();
    sb = sandbox();
  });
  afterEach(() => sb.cleanup());

  it("stores a masked API key and launch defaults", async () => {
    const key = "sk-test-0123456789-wxyz";
    const answers: [string, string][] = [
      ["OpenAI API key", `${key}\r`],
      ["Anthropic API key", "\r"],
      ["Google (Gemini) API key", "\r"],
      ["local model server", "n\r"],
      ["OpenAI-compatible endpoint", "n\r"],
      ["SearXNG", "\r"],
      ["headless by default", "n\r"],
      ["executable", "/usr/bin/chromium\r"],
      ["viewport", "800x600\r"],
    ];
    const { code, out } = await runInit(answers);
    expect(code, out).toBe(0);
    expect(out).not.toContain(key); // masked while typing and in the summary
    expect(out).toContain("sk-…wxyz");
    const file = join(sb.config, "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      openai: { apiKey: key },
      browser: { headless: false, executablePath: "/usr/bin/chromium", viewport: "800x600" },
    });
  }, 60_000);

  it("offers a local model server: the chosen preset and model name become the default model (no key asked for it)", async () => {
    const answers: [string, string][] = [
      ["OpenAI API key", "\r"],
      ["Anthropic API key", "\r"],
      ["Google (Gemini) API key", "\r"],
      ["local model server", "y\r"],
      // The four presets are listed with whether each answers /v1/models now; the arrow picks the second.
      ["Which server?", "\x1b[B\r"],
      ["Model name on LM Studio", "qwen2.5-7b-instruct\r"],
      ["SearXNG", "\r"],
      ["headless by default", "\r"],
      ["executable", "\r"],
      ["viewport", "\r"],
    ];
    const { code, out } = await runInit(answers);
    expect(code, out).toBe(0);
    expect(out).toContain("http://localhost:11434/v1");
    expect(out).toContain("http://localhost:8080/v1");
    expect(JSON.parse(readFileSync(join(sb.config, "config.json"), "utf8"))).toMatchObject({ model: { name: "lmstudio/qwen2.5-7b-instruct" } });
  }, 60_000);

  it("offers an endpoint of your own (base URL and model name, checked as config set checks them) and a search URL", async () => {
    const answers: [string, string][] = [
      ["OpenAI API key", "\r"],
      ["Anthropic API key", "\r"],
      ["Google (Gemini) API key", "\r"],
      ["local model server", "n\r"],
      ["OpenAI-compatible endpoint", "y\r"],
      // A bad URL is refused in place, naming the setting; the prompt waits for a good one.
      ["Base URL of the endpoint", "not a url\r"],
      ["model.baseURL", "\x15http://gpu-box.internal:8000/v1\r"],
      ["Model name at that endpoint", "llama3.1:8b\r"],
      ["SearXNG", "http://127.0.0.1:8888\r"],
      ["headless by default", "\r"],
      ["executable", "\r"],
      ["viewport", "\r"],
    ];
    const { code, out } = await runInit(answers);
    expect(code, out).toBe(0);
    expect(JSON.parse(readFileSync(join(sb.config, "config.json"), "utf8"))).toMatchObject({
      model: { name: "llama3.1:8b", baseURL: "http://gpu-box.internal:8000/v1" },
      search: { url: "http://127.0.0.1:8888" },
    });
  }, 60_000);
});
