/**
 * A page that loops on alert()/confirm() for ever (dialog-forever.html) does not hold a CLI command past its
 * --timeout: the goto ends with TIMEOUT, and so does an act sent afterwards, whose attach to the session
 * the looping page never answers (it hung for minutes before). Both exit 7 (EXIT_CODES.md); a command with
 * no --timeout ends the same way after the default attach bound. A page that starts its loop just after its
 * load event (the navigation's settling then met it) ends the goto at its --timeout too: it held the command
 * for Chrome's 180 s protocol timeout before (issue 41).
 */
import { describe, expect, it } from "vitest";
import { json, svc, useCliWorld } from "./helpers.js";

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
      // The act, and a command with no --timeout of its own, both sent now: each is bounded by its own clock.
      // The latter ends at the documented attach default (30 s); sending it beside the act rather than after
      // it keeps the looping page from spinning through both bounds one after the other.
      t0 = Date.now();
      const acting = svc(["--json", "--session", id, "act", "--timeout", "3000", "--action", click], world.sb.env, { timeoutMs: 60_000 }).then((r) => ({ r, took: Date.now() - t0 }));
      const getting = svc(["--json", "--session", id, "get", "title"], world.sb.env, { timeoutMs: 90_000 }).then((r) => ({ r, took: Date.now() - t0 }));
      const act = await acting;
      expect(act.r.code, act.r.stdout + act.r.stderr).toBe(7);
      expect(json<{ error: { code: string } }>(act.r.stdout).error.code).toBe("TIMEOUT");
      expect(act.took).toBeLessThan(3000 + SLACK_MS);
      const get = await getting;
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
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env, { timeoutMs: 60_000 });
    }
  }, 240_000);
});
