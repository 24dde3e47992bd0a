/**
 * `svc act --action` on a page that navigates itself (self-navigate.html: location.replace right after each
 * load): the lookup is made again on each new document, and when the page never stops, the act ends with
 * TIMEOUT (exit 7, EXIT_CODES.md) within its --timeout — not exit 1 with a CDP error about a lost context.
 * A page that stops after a few hops gets the action done on the last document.
 *
 * The tests are about goto and act, not about a session's start or end: they share one live session (each
 * goto puts its own page in the tab). The page keeps a click in sessionStorage, so the test that looks for a
 * click runs before any test that clicks.
 */
import { describe, expect, it } from "vitest";
import { json, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const click = JSON.stringify({ selector: "#go", description: "the Go button", method: "click", arguments: [] });

async function gotoPage(page: string): Promise<void> {
  // The goto itself may see the document change under it; the act is what is tested here.
  await svc(["--json", "goto", world.server.url(page)], world.sb.env);
}

describe("svc goto a self-navigating page", () => {
  it("exit 0 with the document it ended on: the title read after load is asked again of the new document", async () => {
    // Several times: each goto races the page's next hop (it exited 1 with a CDP error about a lost context).
    for (let i = 0; i < 4; i++) {
      const r = await svc(["--json", "goto", world.server.url("self-navigate.html?every=0")], world.sb.env, { timeoutMs: 60_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = json<{ url: string; title: string }>(r.stdout);
      expect(out.url).toContain("self-navigate.html");
      expect(["Self-navigating", ""]).toContain(out.title);
    }
  }, 120_000);
});

describe("svc act on a self-navigating page", () => {
  it("a page that stops after a few hops: the click is received by one of its documents (exit 0)", async () => {
    await gotoPage("self-navigate.html?every=150&stop=8");
    const r = await svc(["--json", "act", "--timeout", "15000", "--action", click], world.sb.env, { timeoutMs: 60_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The act may land on any hop (it starts while the page still hops); the page keeps the click in
    // sessionStorage, so the last document (hop 8) shows whether a document really received it.
    const page = await svc(["--json", "wait", "--text", "Hop 8", "--timeout", "30000"], world.sb.env).then(() => svc(["--json", "extract"], world.sb.env));
    expect(page.stdout).toContain("Hop 8");
    expect(page.stdout).toMatch(/clicked: go \(on hop \d\)/);
  }, 90_000);

  it("a page that never stops navigating: TIMEOUT, exit 7, within the --timeout", async () => {
    await gotoPage("self-navigate.html?every=20");
    const t0 = Date.now();
    const r = await svc(["--json", "act", "--timeout", "3000", "--action", click], world.sb.env, { timeoutMs: 60_000 });
    const took = Date.now() - t0;
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(json<{ error: { code: string; message: string } }>(r.stdout).error).toMatchObject({ code: "TIMEOUT", message: expect.stringMatching(/keeps navigating|did not finish within 3000 ms/) });
    // The bound plus the CLI's start and the session's round trips, generous for a loaded machine: without the
    // bound the command ran to Chrome's 180 s protocol timeout.
    expect(took).toBeLessThan(3000 + 25_000);
  }, 90_000);
});
