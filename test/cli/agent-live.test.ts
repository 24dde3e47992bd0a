/**
 * `svc agent` at a terminal and on Ctrl-C: the Ink view in a real pseudo-terminal (steps, final answer,
 * no variable values), and an interrupt mid-run, by SIGINT with --json and by Ctrl-C typed at the
 * terminal: the run is aborted through its signal, run_end and the result still come out, the exit code is
 * 130, and no Chrome is left behind.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakeModel } from "../support/fake-model.js";
import type { FixtureServer } from "../support/server.js";
import { scriptTimes, siteBrain, step } from "../e2e/agent-support.js";
import { BIN, ROOT, type Sandbox, collect, hasPython, spawnSvc, type ModelWorld, startModelWorld, terminalEnv, expectNoChrome } from "./helpers.js";

let server: FixtureServer;
let fake: FakeModel;
let sb: Sandbox;

let world: ModelWorld | undefined;

beforeAll(async () => {
  world = await startModelWorld();
  ({ server, fake, sb } = world);
});

afterAll(async () => {
  await world?.close();
});

beforeEach(() => fake.reset());

const start = () => server.url("site/index.html");
const TASK = "Order two Boston Ferns with express delivery and tell me the order number";
/** Step 1 thinks; step 2's model call hangs until the run is interrupted. */
const hangAtStep2 = () => fake.script(step("think", { thought: "look around first" }), { kind: "delay", ms: 30_000, then: step("done", { message: "late", success: true }) });

/**
 * Runs argv in a pseudo-terminal (40×120), reading everything it prints until it exits; once `marker`
 * has appeared, types Ctrl-C. Prints the output and exits with the child's code.
 */
const PTY = String.raw`
import fcntl, json, os, pty, select, struct, sys, termios, time
argv, marker = json.loads(sys.argv[1]), sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execvp(argv[0], argv)
out, sent, status, end = b"", False, None, time.time() + 80
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        out += data
    if marker and not sent and marker.encode() in out:
        time.sleep(0.2)
        os.write(fd, b"\x03")
        sent = True
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            end = min(end, time.time() + 0.5)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status) if status is not None else 99)
`;

function inPty(args: readonly string[], marker = ""): Promise<{ code: number | null; out: string }> {
  const child = spawn("python3", ["-c", PTY, JSON.stringify([process.execPath, BIN, ...args]), marker], { env: terminalEnv(sb.env), cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  return collect(child, 90_000).then((r) => ({ code: r.code, out: r.stdout + r.stderr }));
}

/** The text a terminal would show, without colours and cursor movements. */
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");

describe("svc agent is interrupted cleanly", () => {
  it("SIGINT with --json: the run is aborted, run_end and the result are printed, exit 130, no Chrome left", async () => {
    hangAtStep2();
    const child = spawnSvc(["--json", "agent", "look around", "--url", start()], sb.env);
    let seen = "";
    child.stdout?.on("data", (d: Buffer) => {
      seen += d.toString();
      if (/"type":"step_start","step":2/.test(seen)) child.kill("SIGINT");
    });
    const r = await collect(child, 60_000);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toBe("");
    const lines = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    for (const l of lines) expect(l.schemaVersion).toBe(1);
    expect(lines).toContainEqual({ schemaVersion: 1, ok: false, error: { code: "INTERRUPTED", message: "interrupted" } });
    const end = lines.find((l) => l.type === "run_end")!;
    expect(end.result).toMatchObject({ completed: false, success: false, message: "aborted", metadata: { stopReason: "aborted", steps: 2 } });
    expect(lines.at(-1)).toMatchObject({ type: "result", result: { message: "aborted" } });
    await expectNoChrome(sb.tmp);
  });
});

describe.skipIf(!hasPython)("svc agent at a terminal (Ink view)", () => {
  it("shows the task, each step, tokens and the final answer; no variable value on screen", async () => {
    scriptTimes(fake, siteBrain({ start: start() }));
    const r = await inPty(["agent", TASK, "--url", start(), "--var", "customer=Ada Lovelace", "--var", "email=ada@example.com"]);
    const screen = plain(r.out);
    expect(r.code, screen.slice(-3000)).toBe(0);
    expect(screen).toContain(`Task: ${TASK}`);
    const steps = ["1. perform fill e1", "2. keys key=Enter", "3. perform click", "4. perform click", "5. fillForm 4 fields", "6. perform click", "7. done"];
    let at = 0;
    for (const s of steps) {
      const i = screen.indexOf(`✓ ${s}`, at);
      expect(i, `✓ ${s}`).toBeGreaterThanOrEqual(at);
      at = i;
    }
    expect(screen).toMatch(/✓ Done: Order GS-\d{5} is placed\./);
    expect(screen).toMatch(/7 steps · [\d,]+ in \/ [\d,]+ out tokens · [\d.]+(s| ms)/);
    for (const s of ["Ada Lovelace", "Ada+Lovelace", "ada@example.com", "ada%40example.com"]) expect(screen).not.toContain(s);
    await expectNoChrome(sb.tmp);
  });

  it("Ctrl-C while the model thinks: the view ends with the aborted run, exit 130, no Chrome left", async () => {
    hangAtStep2();
    const r = await inPty(["agent", "look around", "--url", start()], "2. thinking");
    const screen = plain(r.out);
    expect(r.code, screen.slice(-3000)).toBe(130);
    expect(screen).toContain("svc: interrupted");
    expect(screen).toContain("✓ 1. think");
    expect(screen).toContain("✗ Not completed: aborted");
    await expectNoChrome(sb.tmp);
  });
});
