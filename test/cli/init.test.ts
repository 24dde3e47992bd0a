/**
 * `svc init` in a real pseudo-terminal (Python's pty module drives it: Node has no built-in pty): the
 * API key is typed into a masked prompt, never echoed, and lands in the 0600 config file with the
 * launch defaults.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, BIN, assertBuilt, sandbox } from "./helpers.js";

const hasPython = spawnSync("python3", ["-c", "import pty"], { stdio: "ignore" }).status === 0;

const DRIVER = String.raw`
import json, os, pty, select, sys, time
argv, answers = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b""
def pump(seconds):
    global out
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                return
for prompt, answer in answers:
    end = time.time() + 20
    while prompt.encode() not in out.split(b"\n")[-1] and prompt.encode() not in out[-400:] and time.time() < end:
        pump(0.1)
    os.write(fd, answer.encode())
    pump(0.3)
pump(3)
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
`;

describe.skipIf(!hasPython)("svc init (interactive)", () => {
  let sb: Sandbox;
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
      ["headless by default", "n\r"],
      ["executable", "/usr/bin/chromium\r"],
      ["viewport", "800x600\r"],
    ];
    const child = spawn("python3", ["-c", DRIVER, JSON.stringify([process.execPath, BIN, "init"]), JSON.stringify(answers)], {
      env: sb.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const code = await new Promise<number | null>((r) => child.on("close", r));
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
});
