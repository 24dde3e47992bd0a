/**
 * `svc connect --auto` on the user's own running Chrome, found by its profile's DevToolsActivePort file (a Chromium
 * started here as a user would, --remote-debugging-port=0, with a tab of the user's). The session works in its own tab:
 * the user's is never listed, driven or closed, and ending it leaves Chrome running. No file, or a stale one: one line
 * saying so.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM, expectOneLine, json, pidAlive, svc, useCliWorld, waitFor } from "./helpers.js";

const world = useCliWorld();
const run = (...args: string[]) => svc(args, world.sb.env);

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

interface Target {
  id: string;
  type: string;
  url: string;
}

/** The user's Chrome's page targets, as its own DevTools HTTP endpoint lists them. */
async function pages(port: number): Promise<Target[]> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
  return list.filter((t) => t.type === "page");
}

const USER_PAGE = "data:text/html,<title>mine</title><p>the user's own tab</p>";

describe("svc connect --auto", () => {
  let chrome: ChildProcess | undefined;
  afterAll(() => {
    if (chrome?.pid && pidAlive(chrome.pid)) chrome.kill("SIGKILL");
  });

  it("attaches to the user's running Chrome in a tab of its own, leaves the user's tab alone, and ending it leaves Chrome running", async () => {
    const profile = join(world.sb.tmp, "user-chrome");
    chrome = spawn(CHROMIUM, ["--headless=new", "--no-sandbox", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "--no-first-run", USER_PAGE], { stdio: "ignore", env: { ...process.env, TMPDIR: world.sb.userChromeTmp() } });
    const port = await waitFor(() => {
      try {
        return Number(readFileSync(join(profile, "DevToolsActivePort"), "utf8").split("\n")[0]) || undefined;
      } catch {
        return undefined;
      }
    });
    const [userTab] = await waitFor(async () => ((await pages(port)).some((t) => t.url === USER_PAGE) ? (await pages(port)).filter((t) => t.url === USER_PAGE) : undefined));

    const s = json<{ session: { id: string; attached: string } }>(await ok("--json", "connect", "--auto", "--user-data-dir", profile, "--name", "mine")).session;
    expect(s.attached).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/devtools/browser/`));
    await ok("--session", "mine", "goto", world.server.url("forms.html"));
    expect(await ok("--session", "mine", "snapshot")).toMatch(/textbox/);
    // The session's tabs are its own: the user's is not among them.
    const listed = json<{ tabs: { url: string }[] }>(await ok("--json", "--session", "mine", "tabs")).tabs;
    expect(listed.map((t) => t.url)).toEqual([world.server.url("forms.html")]);
    const during = await pages(port);
    expect(during.find((t) => t.id === userTab!.id)?.url).toBe(USER_PAGE);
    const ownTab = during.find((t) => t.url === world.server.url("forms.html"));
    expect(ownTab).toBeDefined();

    await ok("sessions", "end", "mine");
    expect(pidAlive(chrome.pid!)).toBe(true);
    // The session's tab closes; the user's stays, as it was.
    const after = await waitFor(async () => {
      const now = await pages(port);
      return now.some((t) => t.id === ownTab!.id) ? undefined : now;
    });
    expect(after.find((t) => t.id === userTab!.id)?.url).toBe(USER_PAGE);
    expect(pidAlive(chrome.pid!)).toBe(true);
    chrome.kill("SIGKILL");
  });

  it("says where it looked and how to allow remote debugging when no Chrome announces itself, and that a file is stale", async () => {
    const empty = join(world.sb.tmp, "no-chrome");
    mkdirSync(empty, { recursive: true });
    const r = await run("connect", "--auto", "--user-data-dir", empty);
    expect(r.code).toBe(3);
    const line = expectOneLine(r.stderr);
    expect(line).toContain(`no DevToolsActivePort in ${empty}`);
    expect(line).toContain("chrome://inspect/#remote-debugging");
    expect(line).toContain("--remote-debugging-port=0");
    expect(line).not.toMatch(/install Chromium/);

    // A port nobody listens on any more: the file of a Chrome that quit.
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const gone = (srv.address() as AddressInfo).port;
    await new Promise((r) => srv.close(r));
    writeFileSync(join(empty, "DevToolsActivePort"), `${gone}\n/devtools/browser/0f6c3f9e-1b2a-4c3d-9e8f-123456789abc\n`);
    const stale = await run("connect", "--auto", "--user-data-dir", empty);
    expect(stale.code).toBe(3);
    expect(expectOneLine(stale.stderr)).toMatch(new RegExp(`names port ${gone}, but nothing answers there.*stale`));

    writeFileSync(join(empty, "DevToolsActivePort"), "99999\n/devtools/browser/x\n");
    expect(expectOneLine((await run("connect", "--auto", "--user-data-dir", empty)).stderr)).toMatch(/its first line is not a port 1-65535/);
  });
});
