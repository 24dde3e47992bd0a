/**
 * What a person sees of `svc agent` at a terminal, in a real pseudo-terminal: the first line comes before Chrome is
 * up, and the screen the run leaves (replayed through a small terminal emulator) has no spinner line and its totals
 * once, also after Ctrl-C, where `svc: interrupted` is printed while the live frame is on screen.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { BIN, ROOT, collect, hasPython, useModelWorld, svc, terminalEnv, expectNoChrome } from "./helpers.js";
import { TEST_MARK } from "../support/process.js";

const { server, fake, sb } = useModelWorld();

/**
 * Runs argv in a 40×120 pseudo-terminal and prints JSON: every chunk read with its time (ms since the
 * fork), the first time a Chrome process of this sandbox (its environment holds `needle`, the sandbox's
 * mark: test/support/process.ts) was seen, and the exit code. Types Ctrl-C once `marker` has appeared.
 */
const PTY = String.raw`
import fcntl, json, os, pty, select, struct, sys, termios, time
argv, marker, needle = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
t0 = time.time()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execvp(argv[0], argv)
def chrome_up():
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == pid:
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                c = f.read()
            with open("/proc/%s/environ" % p, "rb") as f:
                e = f.read().split(b"\0")
        except OSError:
            continue
        if needle in e and b"chrom" in c.split(b"\0")[0]:
            return True
    return False
chunks, out, sent, status, chrome, end = [], b"", False, None, None, time.time() + 80
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.02)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if data:
            chunks.append([(time.time() - t0) * 1000, data.decode(errors="replace")])
            out += data
    if chrome is None and chrome_up():
        chrome = (time.time() - t0) * 1000
    if marker and not sent and marker.encode() in out:
        time.sleep(0.3)
        os.write(fd, b"\x03")
        sent = True
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            end = min(end, time.time() + 0.5)
print(json.dumps({"chunks": chunks, "chrome": chrome, "code": os.waitstatus_to_exitcode(status) if status is not None else 99}))
`;

interface PtyRun {
  chunks: Array<[number, string]>;
  /** When a Chrome of this sandbox was first seen (ms), null if never. */
  chrome: number | null;
  code: number;
}

async function inPty(args: readonly string[], marker = ""): Promise<PtyRun> {
  const child = spawn("python3", ["-c", PTY, JSON.stringify([process.execPath, BIN, ...args]), marker, `${TEST_MARK}=${sb.tmp}`], { env: terminalEnv(sb.env), cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const r = await collect(child, 90_000);
  return JSON.parse(r.stdout) as PtyRun;
}

/**
 * The screen a terminal shows after `out`: text, CR, LF, and the CSI sequences Ink and svc use (cursor
 * up/down/column, erase line/screen); others (colours, cursor visibility, synchronized output) change nothing.
 */
function screenOf(out: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (rows[row] ??= []);
  for (let i = 0; i < out.length; i++) {
    const ch = out[i]!;
    if (ch === "\x1b" && out[i + 1] === "[") {
      const m = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(out.slice(i, i + 16));
      if (!m) continue;
      i += m[0].length - 1;
      const n = Number(m[1] || "0");
      switch (m[2]) {
        case "A":
          row = Math.max(0, row - (n || 1));
          break;
        case "B":
          row += n || 1;
          break;
        case "G":
          col = Math.max(0, (n || 1) - 1);
          break;
        case "K":
          if (n === 2) rows[row] = [];
          else if (n === 0) line().length = Math.min(line().length, col);
          break;
        case "J":
          if (n === 2 || n === 3) rows.splice(0, rows.length, []), (row = 0), (col = 0);
          break;
        case "H":
          row = 0;
          col = 0;
          break;
      }
      continue;
    }
    if (ch === "\r") col = 0;
    else if (ch === "\n") row++;
    else if (ch >= " " || ch === "\t") {
      const l = line();
      while (l.length < col) l.push(" ");
      l[col++] = ch;
    }
    line();
  }
  const text = rows.map((r) => (r ?? []).join("").trimEnd());
  while (text.length && text.at(-1) === "") text.pop();
  return text;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const TOTALS = /[\d,]+ in \/ [\d,]+ out tokens/g;
const all = (r: PtyRun) => r.chunks.map(([, s]) => s).join("");

describe.skipIf(!hasPython)("svc agent's terminal view, as the terminal shows it", () => {
  it("says what it waits for before Chrome is up; the screen left has the totals once and no spinner", async () => {
    fake.script(step("think", { thought: "look around" }), step("done", { message: "all good", success: true }));
    const r = await inPty(["agent", "look around", "--url", server.url("site/index.html")]);
    const screen = screenOf(all(r));
    expect(r.code, screen.join("\n")).toBe(0);
    const [firstAt, first] = r.chunks[0]!;
    expect(r.chrome, "a Chrome of this run was seen").not.toBeNull();
    expect(firstAt, `first output at ${Math.round(firstAt)} ms, Chrome up at ${Math.round(r.chrome!)} ms`).toBeLessThan(r.chrome!);
    // The pty may hand over "starting…" and the next line in one read when the machine is busy.
    expect(first.startsWith("starting…"), JSON.stringify(first)).toBe(true);
    expect(all(r)).toContain("starting Chrome…");
    expect(screen.join("\n")).toContain("✓ Done: all good");
    expect(screen.filter((l) => SPINNER.test(l)), screen.join("\n")).toEqual([]);
    expect(screen.join("\n").match(TOTALS), screen.join("\n")).toHaveLength(1);
    expect(screen.filter((l) => /starting/.test(l))).toEqual([]);
    await expectNoChrome(sb.tmp);
  });

  it("Ctrl-C while the model thinks: `svc: interrupted` stays on screen, no spinner line behind, the totals once", async () => {
    fake.script(step("think", { thought: "look around first" }), { kind: "delay", ms: 30_000, then: step("done", { message: "late", success: true }) });
    const r = await inPty(["agent", "look around", "--url", server.url("site/index.html")], "2. thinking");
    const screen = screenOf(all(r));
    const text = screen.join("\n");
    expect(r.code, text).toBe(130);
    expect(text).toContain("✓ 1. think");
    expect(screen.filter((l) => SPINNER.test(l)), text).toEqual([]);
    expect(text).toContain("svc: interrupted");
    expect(text).toContain("✗ Not completed: aborted");
    expect(text.match(TOTALS), text).toHaveLength(1);
    await expectNoChrome(sb.tmp);
  });

  it("on a live session the first lines say which session it attaches to", async () => {
    const started = await svc(["sessions", "start", "--name", "screen", "--idle-timeout", "5"], sb.env);
    expect(started.code, started.stderr).toBe(0);
    try {
      fake.script(step("done", { message: "attached", success: true }));
      const r = await inPty(["agent", "say done", "--url", server.url("site/index.html")]);
      const screen = screenOf(all(r));
      expect(r.code, screen.join("\n")).toBe(0);
      expect(r.chunks[0]![1].startsWith("starting…"), JSON.stringify(r.chunks[0]![1])).toBe(true);
      expect(all(r)).toContain("attaching to session screen…");
      expect(all(r)).not.toContain("starting Chrome");
      expect(screen.join("\n")).toContain("✓ Done: attached");
      expect(screen.filter((l) => SPINNER.test(l) || /attaching/.test(l))).toEqual([]);
    } finally {
      await svc(["sessions", "end", "--all"], sb.env);
    }
    await expectNoChrome(sb.tmp);
  });
});

describe("the terminal emulator of these tests", () => {
  it("replays Ink's redraws: erase lines upward, then the new frame", () => {
    expect(screenOf("a\r\n⠋ b\r\nc\r\n\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[Gd\r\n")).toEqual(["a", "d"]);
    expect(screenOf("x\r\n\x1b[31mred\x1b[39m\r\x1b[2Kz")).toEqual(["x", "z"]);
  });
});
