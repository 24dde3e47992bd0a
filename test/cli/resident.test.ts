/**
 * A CLI session's resident processes: after a few commands, one session has two Node processes — its reaper
 * (the only holder of Chrome's DevTools pipe) and its host (which also answers dialogs and records downloads
 * between commands) — and no third. Their RSS is printed for the record.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { processesMentioning, spawnOnly, svc, useCliWorld } from "./helpers.js";

// The processes are what is counted: every command is a real `node bin/svc.js`.
spawnOnly();

const world = useCliWorld({ session: true });

interface Resident {
  pid: number;
  role: string;
  rssKb: number;
}

/** The Node processes whose command line names this sandbox (its state dir, profile or temp dir). */
function residentNodes(): Resident[] {
  const out: Resident[] = [];
  for (const pid of processesMentioning(dirname(world.sb.state))) {
    try {
      if (!/^node/.test(basename(readlinkSync(`/proc/${pid}/exe`)))) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      out.push({ pid, role: basename(cmd[1] ?? "?"), rssKb: Number(rss?.[1] ?? 0) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

describe("a CLI session's resident processes", () => {
  it("after a few commands: the reaper and the host, no third Node process", async () => {
    const run = async (...args: string[]) => {
      const r = await svc(args, world.sb.env);
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    await run("goto", world.server.url("forms.html"));
    for (let i = 0; i < 3; i++) await run("snapshot", "-i");
    await run("fill", "#name", "Ada");
    await run("get", "url");
    const nodes = residentNodes();
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    console.log(`resident Node processes: ${nodes.map((n) => `${n.role} ${mb(n.rssKb)} MB`).join(", ")}; total ${mb(nodes.reduce((s, n) => s + n.rssKb, 0))} MB`);
    expect(nodes.map((n) => n.role).sort()).toEqual(["host.js", "reaper.js"]);
  }, 120_000);
});
