/**
 * A CLI session's resident process: after ten commands, one session has one Node process — its host, which
 * holds Chrome's DevTools pipe, answers dialogs and records downloads between commands and runs the
 * commands — and no second. Its RSS is printed for the record. Killed with -9, it takes Chrome with it.
 */
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { markedProcesses } from "../support/process.js";
import { expectNoProcesses, pidAlive, spawnOnly, svc, useCliWorld, waitFor } from "./helpers.js";

// The processes are what is counted: every command is a real `node bin/svc.js`.
spawnOnly();

const world = useCliWorld({ session: true });

interface Resident {
  pid: number;
  role: string;
  rssKb: number;
}

/** The Node processes started in this sandbox (marked with its TMPDIR: test/support/process.ts). */
function residentNodes(): Resident[] {
  const out: Resident[] = [];
  for (const { pid, args: cmd } of markedProcesses(world.sb.tmp)) {
    try {
      if (!/^node/.test(basename(readlinkSync(`/proc/${pid}/exe`)))) continue;
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      out.push({ pid, role: (cmd.slice(1).find((a) => a.endsWith(".js")) ?? "?").split("/").slice(-2).join("/"), rssKb: Number(rss?.[1] ?? 0) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

describe("a CLI session's resident processes", () => {
  const run = async (...args: string[]) => {
    const r = await svc(args, world.sb.env);
    expect(r.code, r.stderr).toBe(0);
    return r;
  };

  it("after ten commands: the host alone, no second Node process", async () => {
    await run("goto", world.server.url("forms.html"));
    for (let i = 0; i < 6; i++) await run("snapshot", "-i");
    await run("fill", "#name", "Ada");
    await run("get", "url");
    await run("get", "title");
    const nodes = residentNodes();
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    console.log(`resident Node processes: ${nodes.map((n) => `${n.role} ${mb(n.rssKb)} MB`).join(", ")}; total ${mb(nodes.reduce((s, n) => s + n.rssKb, 0))} MB`);
    expect(nodes.map((n) => n.role)).toEqual(["host/main.js"]);
  }, 120_000);

  it("its one resident process killed with -9: the session's Chrome ends, and nothing of it runs on", async () => {
    const { sessions } = JSON.parse((await run("--json", "sessions", "list")).stdout) as { sessions: { id: string; status: string }[] };
    const id = sessions.find((s) => s.status === "alive")!.id;
    const { session } = JSON.parse((await run("--json", "sessions", "show", id)).stdout) as { session: { pid: number; userDataDir: string } };
    const [host] = residentNodes();
    expect(host?.role).toBe("host/main.js");
    expect(pidAlive(session.pid)).toBe(true);
    process.kill(host!.pid, "SIGKILL");
    // Chrome's only pipe was the host's: Chrome sees it close and quits, its renderers with it.
    await waitFor(() => !pidAlive(session.pid));
    await expectNoProcesses(session.userDataDir);
    expect(residentNodes()).toEqual([]);
    // Forgetting the dead session removes Chrome's run dir, unless another svc's sweep of dead run dirs
    // (sweepRunDirs: a run from a parallel test file, sharing the run base) removed it first.
    await run("sessions", "end", "--all");
    expect(existsSync(dirname(session.userDataDir))).toBe(false);
  }, 60_000);
});
