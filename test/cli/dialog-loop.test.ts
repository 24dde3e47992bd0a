/**
 * A page that loops on alert()/confirm() for ever does not hold a CLI command past its --timeout: a goto, an act
 * whose click starts the loop, and an attach that meets it (default bound) all end with TIMEOUT (exit 7), the tab
 * left on a blank page. A loop starting just after load ends the goto at its --timeout too, and the same host takes
 * the next goto (issue 41).
 */
import { describe, expect, it } from "vitest";
import { json, processesMentioning, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld();
const click = JSON.stringify({ selector: "#go", description: "the Go button", method: "click", arguments: [] });
/** The bound plus the CLI's own start and the session's round trips. */
const SLACK_MS = 8000;

describe("a dialog loop under the CLI", () => {
  it("goto and act on a page looping alert()/confirm() end with TIMEOUT (exit 7) within --timeout", async () => {
    const started = await svc(["--json", "sessions", "start"], world.sb.env);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string } }>(started.stdout).session.id;
    try {
      let t0 = Date.now();
      const nav = await svc(["--json", "--session", id, "goto", world.server.url("dialog-forever.html"), "--timeout", "3000"], world.sb.env, { timeoutMs: 60_000 });
      expect(nav.code, nav.stdout + nav.stderr).toBe(7);
      expect(Date.now() - t0).toBeLessThan(3000 + SLACK_MS);
      expect(json<{ error: { message: string } }>(nav.stdout).error.message).toMatch(/the page kept opening dialogs; the tab was left on a blank page/);
      // The goto left the tab: the loop starts again with the act's click, then a command with no --timeout of
      // its own meets it while attaching and ends at the documented attach default (30 s).
      const calm = await svc(["--json", "--session", id, "goto", world.server.url("dialog-forever.html?start=click")], world.sb.env, { timeoutMs: 60_000 });
      expect(calm.code, calm.stdout + calm.stderr).toBe(0);
      t0 = Date.now();
      const act = await svc(["--json", "--session", id, "act", "--timeout", "3000", "--action", click], world.sb.env, { timeoutMs: 60_000 }).then((r) => ({ r, took: Date.now() - t0 }));
      expect(act.r.code, act.r.stdout + act.r.stderr).toBe(7);
      expect(json<{ error: { code: string } }>(act.r.stdout).error.code).toBe("TIMEOUT");
      expect(act.took).toBeLessThan(3000 + SLACK_MS);
      t0 = Date.now();
      const get = await svc(["--json", "--session", id, "get", "title"], world.sb.env, { timeoutMs: 90_000 }).then((r) => ({ r, took: Date.now() - t0 }));
      expect(get.r.code, get.r.stdout + get.r.stderr).toBe(7);
      expect(json<{ error: { code: string; message: string } }>(get.r.stdout).error.message).toMatch(/within 30000 ms/);
      expect(get.took).toBeLessThan(30_000 + SLACK_MS);
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env, { timeoutMs: 60_000 });
    }
  }, 180_000);

  it("goto onto a page that loops right after its load event: TIMEOUT (exit 7) at --timeout, not 180 s (issue 41)", async () => {
    const started = await svc(["--json", "sessions", "start"], world.sb.env);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string } }>(started.stdout).session.id;
    try {
      const t0 = Date.now();
      const nav = await svc(["--json", "--session", id, "goto", world.server.url("dialog-forever.html?start=after-load"), "--timeout", "5000"], world.sb.env, { timeoutMs: 200_000 });
      expect(nav.code, nav.stdout + nav.stderr).toBe(7);
      expect(json<{ error: { code: string; message: string } }>(nav.stdout).error.message).toMatch(/(did not (finish|reach "load")|loaded but did not answer) within 5000 ms/);
      expect(Date.now() - t0).toBeLessThan(5000 + SLACK_MS);
      expect(json<{ error: { message: string } }>(nav.stdout).error.message).toMatch(/the page kept opening dialogs; the tab was left on a blank page/);
      // The session is still usable: the same host (same process) takes the next goto and snapshot.
      const hosts = processesMentioning(`host/main.js\0${id}\0`);
      expect(hosts).toHaveLength(1);
      const next = await svc(["--json", "--session", id, "goto", world.server.url("forms.html"), "--timeout", "10000"], world.sb.env, { timeoutMs: 60_000 });
      expect(next.code, next.stdout + next.stderr).toBe(0);
      expect(json<{ session: string; url: string }>(next.stdout)).toMatchObject({ session: id, url: world.server.url("forms.html") });
      const snap = await svc(["--session", id, "snapshot"], world.sb.env, { timeoutMs: 60_000 });
      expect(snap.code, snap.stdout + snap.stderr).toBe(0);
      expect(snap.stdout).toMatch(/Full name/);
      expect(processesMentioning(`host/main.js\0${id}\0`)).toEqual(hosts);
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env, { timeoutMs: 60_000 });
    }
  }, 240_000);
});
