/**
 * `svc sessions start --browser ID` (issue 43): a second session on another session's Chrome, in a browser
 * context of its own, with a host of its own. Commands on both at once touch only their own page; ending the
 * joiner leaves the owner working; ending the owner ends its joiners with its Chrome. And a verb's `--tab N`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chromeProcessesOf, expectNoChrome, json, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld();

async function ok(...args: string[]): Promise<string> {
  const r = await svc(args, world.sb.env);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The run dirs of the Chromes running under the sandbox's mark: one per Chrome process tree. */
function chromeTrees(): Set<string> {
  return new Set(chromeProcessesOf(world.sb.tmp).flatMap((p) => (p.kind === "chrome" && p.runDir ? [p.runDir] : [])));
}

describe("svc sessions start --browser", () => {
  it("the joiner works in a context of its own on the owner's ONE Chrome, both at once; ending it leaves the owner working; ending the owner ends both", async () => {
    await ok("sessions", "start", "--name", "owner");
    const joined = json<{ session: { id: string; joined: string } }>(await ok("--json", "sessions", "start", "--browser", "owner", "--name", "guest")).session;
    expect(joined.joined).toMatch(/^[0-9a-f]{8}$/);
    expect(chromeTrees().size).toBe(1);

    await Promise.all([
      (async () => {
        await ok("--session", "owner", "goto", world.server.url("forms.html"));
        await ok("--session", "owner", "fill", "#name", "Ada");
        await ok("--session", "owner", "click", "#subscribe");
      })(),
      (async () => {
        await ok("--session", "guest", "goto", world.server.url("controls.html"));
        await ok("--session", "guest", "fill", "#keys", "Bob");
        await ok("--session", "guest", "click", "#remove-me");
      })(),
    ]);
    expect(await ok("--session", "owner", "get", "url")).toBe(world.server.url("forms.html"));
    expect(await ok("--session", "owner", "get", "value", "#name")).toBe("Ada");
    expect(await ok("--session", "owner", "is", "checked", "#subscribe")).toBe("true");
    expect(await ok("--session", "guest", "get", "url")).toBe(world.server.url("controls.html"));
    expect(await ok("--session", "guest", "get", "value", "#keys")).toBe("Bob");
    expect(await ok("--session", "guest", "get", "count", "#remove-me")).toBe("0");
    // Cookies are each context's own: a saved state holds only the session's.
    await ok("--session", "owner", "eval", "document.cookie = 'who=owner; max-age=600'");
    await ok("--session", "guest", "goto", world.server.url("forms.html"));
    expect(await ok("--session", "guest", "eval", "document.cookie")).toBe('""');
    await ok("--session", "guest", "eval", "document.cookie = 'who=guest; max-age=600'");
    await ok("--session", "guest", "state", "save", join(world.sb.tmp, "guest.json"));
    expect((JSON.parse(readFileSync(join(world.sb.tmp, "guest.json"), "utf8")) as { cookies: { value: string }[] }).cookies.map((c) => c.value)).toEqual(["guest"]);
    await ok("--session", "guest", "goto", world.server.url("controls.html"));
    // Each lists only its own tab.
    expect((await ok("--session", "owner", "tabs")).split("\n")).toHaveLength(1);
    expect((await ok("--session", "guest", "tabs")).split("\n")).toHaveLength(1);
    const trees = chromeTrees();
    expect(trees.size).toBe(1);

    await ok("sessions", "end", "guest");
    expect(await ok("--session", "owner", "get", "value", "#name")).toBe("Ada");
    await ok("--session", "owner", "fill", "#name", "Still here");
    expect(await ok("--session", "owner", "get", "value", "#name")).toBe("Still here");
    expect(chromeTrees()).toEqual(trees);

    // The owner's Chrome goes with it, and so do the sessions on it.
    await ok("sessions", "start", "--browser", "owner", "--name", "late");
    const ended = await ok("sessions", "end", "owner");
    expect(ended).toMatch(/ended session/);
    expect(await ok("sessions", "list")).toMatch(/^no sessions/);
    await expectNoChrome(world.sb.tmp);
  }, 240_000);

  it("a verb's --tab N acts on tab N while another tab stays selected", async () => {
    await ok("sessions", "start", "--name", "tabbed");
    try {
      await ok("--session", "tabbed", "goto", world.server.url("forms.html"));
      await ok("--session", "tabbed", "tabs", "new", world.server.url("forms.html"));
      await ok("--session", "tabbed", "fill", "#name", "One", "--tab", "1");
      await ok("--session", "tabbed", "click", "#subscribe", "--tab", "1");
      expect(await ok("--session", "tabbed", "tabs")).toMatch(/^\*\s+2\s/m);
      expect(await ok("--session", "tabbed", "get", "value", "#name")).toBe("");
      expect(await ok("--session", "tabbed", "is", "checked", "#subscribe")).toBe("false");
      await ok("--session", "tabbed", "tabs", "select", "1");
      expect(await ok("--session", "tabbed", "get", "value", "#name")).toBe("One");
      expect(await ok("--session", "tabbed", "is", "checked", "#subscribe")).toBe("true");
      const bad = await svc(["--session", "tabbed", "click", "#subscribe", "--tab", "9"], world.sb.env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--tab: no open tab 9/);
    } finally {
      await ok("sessions", "end", "tabbed");
    }
  }, 120_000);
});
