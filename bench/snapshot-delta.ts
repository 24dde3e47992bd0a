/**
 * What `snapshot --delta` saves: tokens of a full `snapshot -i` against `snapshot -i --delta` after one change
 * (forms.html: one field filled; large.html: one button's text changed by script), on a live CLI session, for svc and
 * (given its path) agent-browser. Tokens: o200k_base of exactly what each prints, and svc's estimate. node --import tsx
 * bench/snapshot-delta.ts [AGENT_BROWSER_PATH]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixtureServer } from "../test/support/server.js";
import { estimateTokens } from "../src/snapshot/index.js";
import { tokens } from "./stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", rej);
    child.on("close", (code) => (code === 0 ? res(out) : rej(new Error(`${args.join(" ")}: exit ${code}: ${err}`))));
  });
}

interface Tool {
  name: string;
  cli: (...args: string[]) => Promise<string>;
  /** The ref token a verb takes for the line `role name`. */
  ref(snapshot: string, role: string, name: string): string;
  /** The first snapshot that sets the delta's base, and the delta. */
  base: string[];
  delta: string[];
}

function svcTool(state: string): Tool {
  const env = { ...process.env, SVC_STATE_DIR: state, SVC_CONFIG_DIR: join(state, "config"), CHROME_PATH: CHROME };
  return {
    name: "svc",
    cli: (...args) => run(process.execPath, [join(ROOT, "bin", "svc.js"), ...args], env),
    ref: (s, role, name) => new RegExp(`^\\s*(e\\d+) ${role} ${name}`, "m").exec(s)![1]!,
    base: ["snapshot", "-i"],
    delta: ["snapshot", "-i", "--delta"],
  };
}

function agentBrowserTool(path: string): Tool | undefined {
  const p = resolve(path);
  const bin = [p, join(p, "bin", `agent-browser-${platform()}-${arch()}`), join(p, "node_modules", "agent-browser", "bin", `agent-browser-${platform()}-${arch()}`)].find((b) => existsSync(b) && statSync(b).isFile());
  if (!bin) return undefined;
  const env = { ...process.env, AGENT_BROWSER_EXECUTABLE_PATH: CHROME, AGENT_BROWSER_ARGS: "--no-sandbox", AGENT_BROWSER_SESSION: `svc-delta-${process.pid}` };
  return {
    name: "agent-browser",
    cli: (...args) => run(bin, args, env),
    ref: (s, role, name) => `@${/ref=(e\d+)/.exec(s.split("\n").find((l) => l.includes(`${role} "${name}`))!)![1]!}`,
    base: ["snapshot", "-i", "--delta"],
    delta: ["snapshot", "-i", "--delta"],
  };
}

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const state = mkdtempSync(join(tmpdir(), "svc-delta-bench-"));
  const tools = [svcTool(state)];
  const ab = process.argv[2] ? agentBrowserTool(process.argv[2]) : undefined;
  if (ab) tools.push(ab);
  const cases = [
    { page: "forms.html", change: (t: Tool, snap: string) => t.cli("fill", t.ref(snap, "textbox", "Full name"), "Ada") },
    { page: "large.html", change: (t: Tool) => t.cli("eval", "document.getElementById('row-300-button').textContent = 'Edited item 300'") },
  ];
  try {
    await tools[0]!.cli("sessions", "start");
    for (const c of cases) {
      for (const t of tools) {
        await t.cli("open", server.url(c.page));
        const full = await t.cli(...t.base);
        await c.change(t, full);
        const delta = await t.cli(...t.delta);
        const row = `| ${c.page} | ${t.name} | ${tokens(full)} (${estimateTokens(full)}) | ${tokens(delta)} (${estimateTokens(delta)}) |`;
        process.stdout.write(`${row}\n`);
        process.stderr.write(`--- ${t.name} delta:\n${delta}\n`);
      }
    }
  } finally {
    await tools[0]!.cli("sessions", "end", "--all").catch(() => undefined);
    if (ab) await ab.cli("close").catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
    await server.close();
  }
}

void main();
