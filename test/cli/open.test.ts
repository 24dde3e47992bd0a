/**
 * Sessions that start themselves: `svc open URL` and `svc goto URL` with no live session start one (said once
 * on stderr, with how it ends) and later commands use it; `svc snapshot URL` works like `svc extract URL`
 * (the live session, else a browser for this command only). `sessions end` leaves no Chrome behind.
 */
import { describe, expect, it } from "vitest";
import { expectOneLine, json, svc, useCliWorld, expectNoChrome } from "./helpers.js";

const world = useCliWorld();
const run = (args: readonly string[]) => svc(args, world.sb.env);

async function endAll(): Promise<void> {
  const r = await run(["sessions", "end", "--all"]);
  expect(r.code, r.stderr).toBe(0);
  await expectNoChrome(world.sb.tmp);
}

describe("svc open / goto with no live session", () => {
  it("open starts a session, says so once, and snapshot -i then works on it", async () => {
    const opened = await run(["open", world.server.url("forms.html")]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain(world.server.url("forms.html"));
    const line = expectOneLine(opened.stderr);
    const id = /started session (\S+) \(ends with svc sessions end \1 or after \d+ idle min\)/.exec(line)?.[1];
    expect(id, line).toBeTruthy();

    const snap = await run(["--json", "snapshot", "-i"]);
    expect(snap.code, snap.stderr).toBe(0);
    const body = json(snap.stdout) as { session: string; snapshot: string; url: string };
    expect(body.session).toBe(id);
    expect(body.url).toBe(world.server.url("forms.html"));
    expect(body.snapshot).toMatch(/textbox "Full name" \[ref=e\d+\]|\[e\d+\] textbox "Full name"|e\d+.*Full name/);

    // A second open uses the live session: nothing more is started or said.
    const again = await run(["--json", "open", world.server.url("steps.html")]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe("");
    expect(json(again.stdout)).toMatchObject({ ok: true, session: id, url: world.server.url("steps.html") });
    await endAll();
  });

  it("goto starts one too", async () => {
    const r = await run(["--json", "goto", world.server.url("forms.html")]);
    expect(r.code, r.stderr).toBe(0);
    expect(expectOneLine(r.stderr)).toMatch(/^svc: no live session, so goto started session \S+/);
    const listed = await run(["--json", "sessions", "list"]);
    expect((json(listed.stdout) as { sessions: unknown[] }).sessions).toHaveLength(1);
    await endAll();
  });
});

describe("svc snapshot URL", () => {
  it("with no session: a browser for this command only prints the outline and starts no session", async () => {
    const r = await run(["snapshot", world.server.url("forms.html"), "-i"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Full name");
    expect(r.stdout).toMatch(/e1\b/);
    const listed = await run(["--json", "sessions", "list"]);
    expect((json(listed.stdout) as { sessions: unknown[] }).sessions).toHaveLength(0);
    await expectNoChrome(world.sb.tmp);
  });

  it("with a live session: navigates it, as extract URL does", async () => {
    expect((await run(["open", world.server.url("steps.html")])).code).toBe(0);
    const r = await run(["--json", "snapshot", world.server.url("forms.html")]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ url: world.server.url("forms.html") });
    const get = await run(["get", "url"]);
    expect(get.stdout.trim()).toBe(world.server.url("forms.html"));
    await endAll();
  });
});
