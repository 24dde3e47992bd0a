/**
 * Ctrl-C stops an act mid-action (the built CLI on a persistent session): `svc act --action` typing 200
 * characters into a slow field (slow-keys.html, ≥ 5 s) gets SIGINT, exits 130, and the field holds what it
 * held then — a later look, well after, finds no more characters.
 */
import { describe, expect, it } from "vitest";
import { collect, json, spawnSvc, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld();

/** `typed: N` of slow-keys.html, read by another command on the same session. */
async function typed(id: string): Promise<number> {
  const r = await svc(["--json", "--session", id, "extract"], world.sb.env);
  expect(r.code, r.stderr).toBe(0);
  return Number(/typed: (\d+)/.exec(r.stdout)![1]);
}

describe("Ctrl-C during svc act", () => {
  it("stops the typing between keys and exits 130", async () => {
    const started = await svc(["--json", "sessions", "start"], world.sb.env);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string } }>(started.stdout).session.id;
    expect((await svc(["--json", "--session", id, "goto", world.server.url("slow-keys.html")], world.sb.env)).code).toBe(0);
    const action = { selector: "#field", description: "the field", method: "type", arguments: ["x".repeat(200)] };
    const child = spawnSvc(["--json", "--session", id, "act", "--action", JSON.stringify(action)], world.sb.env);
    const done = collect(child, 30_000);
    // Wait until the typing has begun, then interrupt it.
    const t0 = Date.now();
    while ((await typed(id)) === 0 && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGINT");
    const r = await done;
    expect(r.code).toBe(130);
    const atExit = await typed(id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await typed(id)).toBe(atExit);
    expect(atExit).toBeGreaterThan(0);
    expect(atExit).toBeLessThan(200);
  });
});
