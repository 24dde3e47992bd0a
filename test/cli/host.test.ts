/**
 * The session host (commands/host/main.ts): a live local session gets a resident process that runs the page
 * commands the thin client in bin/svc.js sends it. Served by the host, a command prints and exits exactly as
 * the full CLI (SVC_NO_HOST=1) does; a killed host ends its session (it holds Chrome's pipe); `sessions end`
 * ends the host and removes its socket; no host outlives its session.
 */
import { hostSocketPath } from "../../commands/host/socket.js";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, type RunResult, collect, spawnSvc, json, pidAlive, processesMentioning, spawnOnly, svc, useCliWorld, waitFor } from "./helpers.js";

// The thin client and the host are what is tested: every command is a real `node bin/svc.js`.
spawnOnly();

const world = useCliWorld({ session: true });

// SVC_NO_HOST=1 (the full CLI, the baseline the host's output is compared with) runs in this process: the
// same code the spawned full CLI runs, without a Node start each time; so does the inspection in current().
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => svc(args, { ...world.sb.env, ...env }, { fullCli: env.SVC_NO_HOST === "1" });
const phased = (args: string[], env: NodeJS.ProcessEnv = {}) => run(args, { SVC_PHASES: "1", ...env });
const hosted = (r: RunResult) => /^svc\[phase\] hosted \d+$/m.test(r.stderr);
const withoutPhases = (stderr: string) => stderr.replace(/^svc\[phase\].*\n/gm, "");

/** The live session's id and its host's socket. */
async function current(): Promise<{ id: string; sock: string }> {
  const r = await run(["--json", "sessions", "list"], { SVC_NO_HOST: "1" });
  const { sessions } = json<{ sessions: { id: string; status: string }[] }>(r.stdout);
  const id = sessions.find((s) => s.status === "alive")?.id;
  if (!id) throw new Error(`no live session: ${r.stdout}`);
  return { id, sock: hostSocketPath(world.sb.state, id) };
}

/** Pids of the session's host (its command line is `node …/host/main.js <id> <state dir>`). */
const hostPids = (id: string) => processesMentioning(`host/main.js\0${id}\0`);

describe("the session host", () => {
  it("serves page commands on a live session with the same output, exit codes and files as the full CLI", async () => {
    const { id, sock } = await current();
    await waitFor(() => existsSync(sock));
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);

    const viaHost = await phased(["snapshot", "-i"]);
    expect(viaHost.code).toBe(0);
    expect(hosted(viaHost)).toBe(true);
    const full = await phased(["snapshot", "-i"], { SVC_NO_HOST: "1" });
    expect(full.code).toBe(0);
    expect(hosted(full)).toBe(false);
    expect(viaHost.stdout).toBe(full.stdout);
    expect(viaHost.stdout).toMatch(/^\s*e\d+ textbox Full name$/m);

    const jsonHost = await phased(["--json", "snapshot", "-i"]);
    const jsonFull = await run(["--json", "snapshot", "-i"], { SVC_NO_HOST: "1" });
    expect(hosted(jsonHost)).toBe(true);
    expect(jsonHost.stdout).toBe(jsonFull.stdout);

    // Errors: the same line and exit code (6: element), also as a --json document.
    const bad = await phased(["click", "e999"]);
    const badFull = await run(["click", "e999"], { SVC_NO_HOST: "1" });
    expect(hosted(bad)).toBe(true);
    expect(bad.code).toBe(6);
    expect(withoutPhases(bad.stderr)).toBe(badFull.stderr);
    const badJson = await phased(["--json", "click", "e999"]);
    expect(badJson.code).toBe(6);
    expect(badJson.stdout).toBe((await run(["--json", "click", "e999"], { SVC_NO_HOST: "1" })).stdout);

    // A verb changes the page for the next command, whoever runs it; history records hosted commands too.
    const ref = /^\s*(e\d+) textbox Full name$/m.exec(viaHost.stdout)?.[1] as string;
    const fill = await phased(["fill", ref, "Ada"]);
    expect(fill.code).toBe(0);
    expect(hosted(fill)).toBe(true);
    expect((await run(["get", "value", ref], { SVC_NO_HOST: "1" })).stdout.trim()).toBe("Ada");
    const history = await run(["--json", "history"]);
    expect(history.stdout).toContain('"fill"');

    // A page changed by a full run (no host) is what the host's next command sees, and its refs work there.
    expect((await run(["goto", world.server.url("controls.html")], { SVC_NO_HOST: "1" })).code).toBe(0);
    const fullSnap = await run(["snapshot", "-i"], { SVC_NO_HOST: "1" });
    const hostUrl = await phased(["get", "url"]);
    expect(hosted(hostUrl)).toBe(true);
    expect(hostUrl.stdout.trim()).toBe(world.server.url("controls.html"));
    const firstRef = /^\s*(e\d+) /m.exec(fullSnap.stdout)?.[1] as string;
    const focus = await phased(["focus", firstRef]);
    expect(hosted(focus)).toBe(true);
    expect(focus.code, focus.stderr).toBe(0);
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);

    // A relative path is the client's folder, not the host's.
    const dir = mkdtempSync(join(world.sb.tmp, "cwd-"));
    const child = spawn(process.execPath, [BIN, "screenshot", "-o", "shot.png"], { env: { ...world.sb.env, SVC_PHASES: "1" }, cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    const shot = await collect(child);
    expect(shot.code).toBe(0);
    expect(hosted(shot)).toBe(true);
    expect(existsSync(join(dir, "shot.png"))).toBe(true);

    // A command the host does not run (help) is the full CLI's.
    expect(hosted(await phased(["snapshot", "--help"]))).toBe(false);
    expect(hostPids(id)).toHaveLength(1);
  }, 120_000);

  it("a hosted command's client starts no ES module loader (bin/svc.js and its client are CommonJS); the full CLI still loads", async () => {
    // Node's own list of the internal modules a process loaded, written when the client exits.
    const probe = join(world.sb.tmp, "esm-probe.cjs");
    const out = join(world.sb.tmp, "esm-probe.txt");
    writeFileSync(probe, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`);
    const esmLoaderStarted = () => readFileSync(out, "utf8").split("\n").includes("NativeModule internal/modules/esm/loader");
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
    const viaHost = await phased(["snapshot", "-i"], { NODE_OPTIONS: `--require ${probe}` });
    expect(viaHost.code, viaHost.stderr).toBe(0);
    expect(hosted(viaHost)).toBe(true);
    expect(viaHost.stdout).toMatch(/^\s*e\d+ textbox Full name$/m);
    expect(esmLoaderStarted()).toBe(false);
    // The probe sees the loader when it starts: a command the host does not run loads the CLI's ES modules.
    const version = await run(["--version"], { NODE_OPTIONS: `--require ${probe}` });
    expect(version.code).toBe(0);
    expect(esmLoaderStarted()).toBe(true);
  }, 120_000);

  it("keeps one attachment between commands: a command after a successful one does not attach, and history gets each command once", async () => {
    const attached = (r: RunResult) => /^svc\[phase\] attached \d+$/m.test(r.stderr);
    const reused = (r: RunResult) => /^svc\[phase\] reused \d+$/m.test(r.stderr);
    const entries = async () => json<{ entries: { method: string }[] }>((await run(["--json", "history"])).stdout).entries.length;
    expect((await phased(["goto", world.server.url("forms.html")])).code).toBe(0);
    const before = await entries();
    // Each snapshot records one entry; `get` records none.
    const runs = [await phased(["snapshot", "-i"]), await phased(["get", "title"]), await phased(["snapshot", "-i"]), await phased(["snapshot"])];
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(hosted(r)).toBe(true);
      expect(reused(r), r.stderr).toBe(true);
      expect(attached(r)).toBe(false);
    }
    // Each command's history entries once, not the kept Service's earlier ones again.
    expect(await entries()).toBe(before + 3);
    // A verb, then a new document and its snapshot, then a verb on a ref of that snapshot: the kept Service
    // resolves refs the snapshot command saved after the Service had loaded the page's earlier ones.
    const name = (out: string) => /^\s*(e\d+) textbox Full name$/m.exec(out)?.[1] as string;
    const first = name((await phased(["snapshot", "-i"])).stdout);
    expect((await phased(["fill", first, "Ada"])).code).toBe(0);
    expect(reused(await phased(["goto", world.server.url("forms.html")]))).toBe(true);
    const second = name((await phased(["snapshot", "-i"])).stdout);
    expect(second).not.toBe(first);
    const fill = await phased(["fill", second, "Lin"]);
    expect(fill.code, fill.stderr).toBe(0);
    expect(reused(fill)).toBe(true);
    expect((await phased(["get", "value", second])).stdout.trim()).toBe("Lin");

    // A failed command drops it: the next one attaches afresh.
    expect((await phased(["click", "e999"])).code).toBe(6);
    const afterError = await phased(["get", "url"]);
    expect(attached(afterError)).toBe(true);
    // Another verbosity (or environment) builds another Service; the same again reuses that one.
    const verbose = await phased(["--verbose", "1", "get", "url"]);
    expect(attached(verbose)).toBe(true);
    expect(reused(await phased(["--verbose", "1", "get", "url"]))).toBe(true);
    // Refs saved by a command run beside the host (its own process) are what the host's next command resolves,
    // also on a kept Service that had loaded the page's refs before (the focus).
    expect((await phased(["--verbose", "1", "focus", second])).code).toBe(0);
    expect((await run(["goto", world.server.url("forms.html")], { SVC_NO_HOST: "1" })).code).toBe(0);
    const snap = await run(["snapshot", "-i"], { SVC_NO_HOST: "1" });
    const ref = name(snap.stdout);
    expect(ref).not.toBe(second);
    const other = await phased(["--verbose", "1", "fill", ref, "Grace"]);
    expect(other.code, other.stderr).toBe(0);
    expect(reused(other)).toBe(true);
    expect((await phased(["--verbose", "1", "get", "value", ref])).stdout.trim()).toBe("Grace");
  }, 120_000);

  it("a command sent while the host runs another runs beside it (the full CLI), not queued behind it", async () => {
    const waiter = spawnSvc(["wait", "--text", "text that never appears", "--timeout", "20000"], { ...world.sb.env, SVC_PHASES: "1" });
    let seen = "";
    waiter.stderr?.setEncoding("utf8").on("data", (d: string) => (seen += d));
    const waiting = collect(waiter);
    let waitEnded = false;
    void waiting.then(() => (waitEnded = true));
    await waitFor(() => /^svc\[phase\] hosted/m.test(seen));
    const url = await phased(["get", "url"]);
    expect(url.code).toBe(0);
    expect(hosted(url)).toBe(false);
    expect(url.stdout.trim()).toBe(world.server.url("forms.html"));
    expect(waitEnded).toBe(false);
    // Ctrl-C on a hosted command: as the full CLI, one line and 130. The host (which holds the session's
    // Chrome) runs the command's cleanups, so the wait ends at its next look at the page, and the host,
    // free again, serves the next command: the wait did not go on.
    const { id } = await current();
    const [hostPid] = hostPids(id);
    waiter.kill("SIGINT");
    const w = await waiting;
    expect(w.code).toBe(130);
    expect(withoutPhases(w.stderr)).toBe("svc: interrupted\n");
    let next = await phased(["get", "url"]);
    for (const deadline = Date.now() + 20_000; !hosted(next) && Date.now() < deadline; ) next = await phased(["get", "url"]);
    expect(next.code, next.stderr).toBe(0);
    expect(hosted(next)).toBe(true);
    expect(hostPids(id)).toEqual([hostPid]);
  }, 90_000);

  it("a killed host (-9) is the session's end: its Chrome ends with it, and the next command says the session is gone", async () => {
    const { id, sock } = await current();
    const record = json<{ session: { pid: number } }>((await run(["--json", "sessions", "show", id])).stdout).session;
    const [pid] = hostPids(id);
    expect(pid).toBeDefined();
    process.kill(pid as number, "SIGKILL");
    // The host held Chrome's only pipe: Chrome sees it close and quits.
    await waitFor(() => !pidAlive(record.pid));
    expect(existsSync(sock)).toBe(true); // left behind by the killed host: stale
    const after = await phased(["--session", id, "get", "url"]);
    expect(hosted(after)).toBe(false);
    expect(after.code).toBe(4);
    expect(after.stderr).toMatch(new RegExp(`session ${id} is no longer running: its browser is gone`));
    // A new session for the tests that follow.
    expect((await run(["goto", world.server.url("forms.html")])).code).toBe(0);
  }, 90_000);

  it("`sessions end` ends the host and removes its socket: no host outlives its session", async () => {
    const { id, sock } = await current();
    await waitFor(() => hostPids(id).length === 1);
    const end = await run(["sessions", "end", id]);
    expect(end.code).toBe(0);
    expect(existsSync(sock)).toBe(false);
    await waitFor(() => hostPids(id).length === 0);
    // With no session, a page command is the full CLI's (and says there is no session).
    const none = await phased(["get", "url"]);
    expect(hosted(none)).toBe(false);
    expect(none.code).toBe(4);
  }, 60_000);
  it("the host lives as long as the session (it answers its dialogs), and ends when the session's Chrome is gone; the socket goes with it", async () => {
    const r = await run(["--json", "sessions", "start"]);
    expect(r.code, r.stderr).toBe(0);
    const { session } = json<{ session: { id: string; pid: number } }>(r.stdout);
    const s = { ...session, sock: hostSocketPath(world.sb.state, session.id) };
    // `sessions start` returned with its host running: no first page command needed.
    expect(existsSync(s.sock)).toBe(true);
    expect(hostPids(s.id)).toHaveLength(1);
    const url = await phased(["--session", s.id, "get", "url"]);
    expect(url.code, url.stderr).toBe(0);
    expect(hosted(url)).toBe(true);
    process.kill(s.pid, "SIGKILL");
    await waitFor(() => hostPids(s.id).length === 0);
    expect(existsSync(s.sock)).toBe(false);
    expect((await run(["sessions", "end", "--all"])).code).toBe(0);
  }, 90_000);
});
