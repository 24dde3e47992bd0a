/**
 * Launch edges (issue 11): a long TMPDIR, a run dir whose removal fails part way, Chrome's own fatal line when
 * it cannot start, a userDataDir that does not exist yet, headed with no display, and no orphan Chrome when
 * the watchdog and the owner are both killed (-9).
 */
import { pidAlive, processesMentioning } from "../support/process.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM, waitFor } from "../support/browser.js";
import { launchBrowser } from "../../src/browser/launch.js";
import { sweepRunDirs } from "../../src/browser/run-dir.js";
import { ServiceInitError } from "../../src/errors.js";

const tmp = mkdtempSync(join(tmpdir(), "svc-launch-edges-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An existing directory whose path is longer than 60 characters. */
function longDir(): string {
  const dir = join(tmp, "a-temporary-directory-with-a-rather-long-name-like-macos-gives-0123456789");
  mkdirSync(dir, { recursive: true });
  expect(dir.length).toBeGreaterThan(60);
  return dir;
}

function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return body().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

function reapersOf(runDir: string): number[] {
  return processesMentioning("reaper.js", runDir);
}

describe("run folder and startup failures", () => {
  it("Chrome starts with a TMPDIR longer than 60 characters", async () => {
    const long = longDir();
    const browser = await withEnv({ TMPDIR: long }, () => launchBrowser({ headless: true, executablePath: CHROMIUM }));
    try {
      expect(pidAlive(browser.pid)).toBe(true);
      expect(browser.wsEndpoint).toMatch(/^ws\+unix:\/\/\/.+\/devtools\.sock:\/devtools\/browser\/[\w-]+$/);
      expect(browser.wsEndpoint.startsWith(`ws+unix://${browser.runDir}/`)).toBe(true);
      expect(browser.runDir.length).toBeLessThanOrEqual(36 + "/svc-chrome-XXXXXX".length);
    } finally {
      await browser.close();
    }
  });

  it("a run dir whose removal fails part way keeps its pid files, and the next sweep removes it once its holder and Chrome are gone", async () => {
    const base = mkdtempSync(join(tmp, "r-"));
    const browser = await withEnv({ TMPDIR: base }, () => launchBrowser({ headless: true, executablePath: CHROMIUM }, { kind: "self" }));
    // A file nobody may remove, root included (the immutable attribute), stands for one a dying Chrome process
    // is still writing in its TMPDIR when the dir is removed.
    const stuck = join(browser.runDir, "tmp", "stuck");
    writeFileSync(stuck, "");
    const chattr = (flag: string) => {
      const r = spawnSync("chattr", [flag, stuck], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`chattr ${flag} ${stuck}: ${r.stderr || r.error?.message}`);
    };
    chattr("+i");
    try {
      await expect(browser.close()).rejects.toThrow();
      expect(pidAlive(browser.pid)).toBe(false);
      // Chrome and its holder (this process, which no longer holds it) are named in the dir: a sweep can tell it is done with.
      expect(readdirSync(browser.runDir).sort()).toEqual(["chrome.pid", "holder.pid", "tmp"]);
    } finally {
      chattr("-i");
    }
    // This process is the holder and is alive: the sweep leaves the dir, as it would a running session's.
    await withEnv({ TMPDIR: base }, async () => sweepRunDirs());
    expect(existsSync(browser.runDir)).toBe(true);
    writeFileSync(join(browser.runDir, "holder.pid"), "999999999");
    await withEnv({ TMPDIR: base }, async () => sweepRunDirs());
    expect(existsSync(browser.runDir)).toBe(false);
  });

  it("a Chrome that dies at startup is reported with its own FATAL line", async () => {
    // A wrapper that forces Chrome's TMPDIR to the long path: its singleton socket path is then too long.
    const wrapper = join(tmp, "chrome-long-tmp.sh");
    writeFileSync(wrapper, `#!/bin/sh\nTMPDIR='${longDir()}' exec '${CHROMIUM}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    const err = await launchBrowser({ headless: true, executablePath: wrapper }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceInitError);
    expect((err as Error).message).toMatch(/FATAL.*Socket path too long/);
    expect((err as Error).message).not.toMatch(/ECONNREFUSED/);
  });

  it("a userDataDir that does not exist yet is created and used", async () => {
    const dir = join(tmp, "not", "there", "yet");
    const browser = await launchBrowser({ headless: true, executablePath: CHROMIUM, userDataDir: dir });
    try {
      expect(browser.userDataDir).toBe(dir);
      expect(existsSync(join(dir, "Local State")) || existsSync(join(dir, "Default"))).toBe(true);
    } finally {
      await browser.close();
    }
    expect(existsSync(dir)).toBe(true); // the caller's profile is kept
  });

  it("headed with no display says so", async () => {
    const err = await withEnv({ DISPLAY: undefined, WAYLAND_DISPLAY: undefined }, () =>
      launchBrowser({ headless: false, executablePath: CHROMIUM }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(ServiceInitError);
    expect((err as Error).message).toMatch(/^no display: set DISPLAY or use headless/);
  });
});

/** A separate Node process that launches a Chrome the library's way (a reaper holds it) and then idles. */
async function startOwner(): Promise<{ owner: ChildProcess; pid: number; runDir: string; userDataDir: string }> {
  const script = `
    const { launchBrowser } = await import(${JSON.stringify(new URL("../../dist/src/browser/launch.js", import.meta.url).href)});
    const b = await launchBrowser({ headless: true, executablePath: ${JSON.stringify(CHROMIUM)} });
    console.log(JSON.stringify({ pid: b.pid, runDir: b.runDir, userDataDir: b.userDataDir }));
    setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    owner.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    owner.once("exit", () => reject(new Error(`owner exited early: ${out}`)));
  });
  return { owner, ...(JSON.parse(line) as { pid: number; runDir: string; userDataDir: string }) };
}

function killHard(...targets: number[]): void {
  for (const t of targets) {
    try {
      process.kill(t, "SIGKILL");
    } catch {
      // gone
    }
  }
}

describe("no orphan Chrome", () => {
  it("ends when its reaper is killed (-9): the reaper holds Chrome's only pipe; the dir it leaves names it as holder, so a sweep removes it", async () => {
    const { owner, pid, runDir } = await startOwner();
    try {
      const reapers = await waitFor(() => reapersOf(runDir).length > 0 && reapersOf(runDir));
      expect(pidAlive(pid)).toBe(true);
      expect(Number(readFileSync(join(runDir, "holder.pid"), "utf8"))).toBe(reapers[0]);
      for (const r of reapers) process.kill(r, "SIGKILL");
      await waitFor(() => reapersOf(runDir).length === 0);
      // The owner still runs, but holds no copy of the pipe: Chrome sees it close and quits.
      await waitFor(() => !pidAlive(pid));
      expect(pidAlive(pid)).toBe(false);
      expect(owner.exitCode).toBe(null);
      // Nothing of that Chrome is left to remove its dir but the next launch's sweep (its last processes
      // may still be exiting: the sweep leaves the dir until they are gone).
      await waitFor(() => (sweepRunDirs(), !existsSync(runDir)));
    } finally {
      killHard(owner.pid!, -pid, pid);
      rmSync(runDir, { recursive: true, force: true });
    }
  });

  it("a process of Chrome's still writing into its profile after the browser died is ended by the reaper, and the run dir goes", async () => {
    const { owner, pid, runDir, userDataDir } = await startOwner();
    // Stands for a child of Chrome (its network service, say) that outlives the browser on a loaded machine
    // and keeps writing into the profile: it carries the profile on its command line, as Chrome's children do.
    const script = join(tmp, "straggler.cjs");
    writeFileSync(
      script,
      `const fs = require("fs"); const d = process.argv[2].slice("--user-data-dir=".length) + "/Default";
       setInterval(() => { fs.mkdirSync(d, { recursive: true }); fs.writeFileSync(d + "/journal", String(Date.now())); }, 5);`,
    );
    const straggler = spawn(process.execPath, [script, `--user-data-dir=${userDataDir}`], { stdio: "ignore" });
    try {
      await waitFor(() => existsSync(join(userDataDir, "Default", "journal")));
      await waitFor(() => reapersOf(runDir).length > 0);
      process.kill(pid, "SIGKILL");
      await waitFor(() => straggler.exitCode !== null || straggler.signalCode !== null);
      await waitFor(() => reapersOf(runDir).length === 0 && !existsSync(runDir));
      expect(straggler.signalCode).toBe("SIGTERM");
    } finally {
      killHard(owner.pid!, straggler.pid!, -pid, pid);
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});
