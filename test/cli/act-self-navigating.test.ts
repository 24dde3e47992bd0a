/**
 * `svc act --action` on a page that navigates itself (self-navigate.html): the lookup is redone on each new document;
 * a page that never stops ends the act with TIMEOUT (exit 7) within --timeout, or CLICK_FAILED when its navigation
 * swallowed the press, never a CDP error or a success. A page that stops after a few hops: success only if one of its
 * documents received the click.
 */
import { describe, expect, it } from "vitest";
import { json, svc, useCliWorld, waitFor } from "./helpers.js";

const world = useCliWorld();
const click = JSON.stringify({ selector: "#go", description: "the Go button", method: "click", arguments: [] });

async function sessionOn(page: string): Promise<string> {
  const started = await svc(["--json", "sessions", "start"], world.sb.env);
  expect(started.code, started.stderr).toBe(0);
  const id = json<{ session: { id: string } }>(started.stdout).session.id;
  // The goto itself may see the document change under it; the act is what is tested here. A short bound: on a
  // page that never stops, the goto settles until it (the page hopping all the while, a core's worth of CPU).
  await svc(["--json", "--session", id, "goto", "--timeout", "1500", world.server.url(page)], world.sb.env);
  return id;
}

describe("svc goto a self-navigating page", () => {
  it("exit 0 with the document it ended on: the title read after load is asked again of the new document", async () => {
    const started = await svc(["--json", "sessions", "start"], world.sb.env);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string } }>(started.stdout).session.id;
    try {
      // Several times: each goto races the page's next hop (it exited 1 with a CDP error about a lost context).
      // The race is right after each load, so 30 hops keep it; a page that never stops would hold each goto
      // for the whole settle bound (30 s: it is never quiet).
      for (let i = 0; i < 4; i++) {
        const r = await svc(["--json", "--session", id, "goto", world.server.url("self-navigate.html?every=0&stop=30")], world.sb.env, { timeoutMs: 60_000 });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        const out = json<{ url: string; title: string }>(r.stdout);
        expect(out.url).toContain("self-navigate.html");
        expect(["Self-navigating", ""]).toContain(out.title);
      }
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env);
    }
  }, 120_000);
});

describe("svc goto --timeout on a page that is never quiet", () => {
  it("exit 0 once the page loaded, within the --timeout: the settling after load is bounded by it (it took the 30 s settle bound)", async () => {
    const id = await sessionOn("forms.html");
    try {
      const t0 = Date.now();
      const r = await svc(["--json", "--session", id, "goto", "--timeout", "3000", world.server.url("self-navigate.html?every=20")], world.sb.env, { timeoutMs: 60_000 });
      const took = Date.now() - t0;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(json<{ url: string }>(r.stdout).url).toContain("self-navigate.html");
      // The bound plus the command's own round trips, generous for a loaded machine; far below the 30 s settle.
      expect(took).toBeLessThan(3000 + 15_000);
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env);
    }
  }, 90_000);
});

describe("svc act on a self-navigating page", () => {
  it("a page that never stops navigating: TIMEOUT, exit 7, within the --timeout (a success only when a document received the click)", async () => {
    const id = await sessionOn("self-navigate.html?every=20");
    try {
      const t0 = Date.now();
      const r = await svc(["--json", "--session", id, "act", "--timeout", "3000", "--action", click], world.sb.env, { timeoutMs: 60_000 });
      const took = Date.now() - t0;
      // The bound plus the CLI's start and the session's round trips, generous for a loaded machine: without the
      // bound the command ran to Chrome's 180 s protocol timeout.
      expect(took).toBeLessThan(3000 + 25_000);
      // The act stops at its bound saying the page kept navigating (TIMEOUT, exit 7), or, when its press was sent
      // and the page's own navigation swallowed it, says so (CLICK_FAILED, exit 6). A success only when one of the
      // documents received the click (at a quiet moment the checks and the press fit in one document's ~20 ms+
      // life): the page keeps a click in sessionStorage, which every later document shows.
      if (r.code === 0) {
        const shown = await waitFor(async () => {
          const got = await svc(["--json", "--session", id, "get", "text", "#result"], world.sb.env);
          return got.code === 0 && /clicked: go \(on hop \d+\)/.test(got.stdout) ? got.stdout : undefined;
        });
        expect(shown).toMatch(/clicked: go/);
        return;
      }
      const error = json<{ error: { code: string; message: string } }>(r.stdout).error;
      if (r.code === 6) expect(error).toMatchObject({ code: "CLICK_FAILED", message: expect.stringMatching(/its document was gone before the press reached it/) });
      else {
        expect(r.code, r.stdout + r.stderr).toBe(7);
        expect(error).toMatchObject({ code: "TIMEOUT", message: expect.stringMatching(/keeps navigating|did not finish within 3000 ms/) });
      }
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env);
    }
  }, 90_000);

  it("a page that stops after a few hops: exit 0 only when one of its documents received the click", async () => {
    const id = await sessionOn("self-navigate.html?every=150&stop=8");
    try {
      const r = await svc(["--json", "--session", id, "act", "--timeout", "15000", "--action", click], world.sb.env, { timeoutMs: 60_000 });
      if (r.code !== 0) {
        // The page replaced its document between svc's check and the press: the press reached no document
        // that svc saw take it, and the act says so rather than claim the click.
        expect(r.stdout + r.stderr).toMatch(/its document was gone before the press reached it/);
        return;
      }
      // The act may land on any hop (it starts while the page still hops); the page keeps the click in
      // sessionStorage, so the last document (hop 8) shows whether a document really received it.
      const page = await svc(["--json", "--session", id, "wait", "--text", "Hop 8", "--timeout", "30000"], world.sb.env).then(() =>
        svc(["--json", "--session", id, "extract"], world.sb.env),
      );
      expect(page.stdout).toContain("Hop 8");
      expect(page.stdout).toMatch(/clicked: go \(on hop \d\)/);
    } finally {
      await svc(["--json", "sessions", "end", id], world.sb.env);
    }
  }, 90_000);
});
