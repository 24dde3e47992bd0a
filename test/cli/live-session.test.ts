/**
 * Commands that drive a page use the current live session by default — `svc agent` included — and a
 * one-shot browser only when none is live, or with `--new`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { json, type ModelWorld, startModelWorld, svc } from "./helpers.js";

let world: ModelWorld;
beforeAll(async () => {
  world = await startModelWorld();
});
afterAll(async () => {
  await svc(["sessions", "end", "--all"], world.sb.env);
  await world.close();
});

const run = (args: string[]) => svc(["--json", ...args], world.sb.env, { timeoutMs: 90_000 });

describe("the current live session by default", () => {
  it("extract/screenshot URL and agent run on the live session; --new and no session use a browser of their own", async () => {
    const forms = world.server.url("forms.html");
    const clickable = world.server.url("clickable.html");

    const alone = await run(["extract", forms]);
    expect(alone.code, alone.stderr).toBe(0);
    expect(json(alone.stdout)).not.toHaveProperty("session");

    const started = await run(["sessions", "start"]);
    expect(started.code, started.stderr).toBe(0);
    const id = json<{ session: { id: string } }>(started.stdout).session.id;

    const onSession = await run(["extract", forms]);
    expect(onSession.code, onSession.stderr).toBe(0);
    expect(json(onSession.stdout)).toMatchObject({ session: id, url: forms });

    const fresh = await run(["extract", "--new", clickable]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(json(fresh.stdout)).not.toHaveProperty("session");
    // The session's page was not touched by the --new run.
    expect(json(await run(["extract"]).then((r) => r.stdout))).toMatchObject({ session: id, url: forms });

    // An explicit --env picks a live session only of that kind: --env BROWSERBASE never means the local Chrome
    // (here it tries a cloud one-shot, which needs the platform's key); --env LOCAL does.
    const cloud = await svc(["--json", "--env", "BROWSERBASE", "extract", clickable], { ...world.sb.env, BROWSERBASE_API_KEY: "" });
    expect(cloud.code).toBe(2);
    expect(json<{ error: { message: string } }>(cloud.stdout).error.message).toMatch(/needs the platform's API key/);
    expect(json(await run(["--env", "LOCAL", "extract", forms]).then((r) => r.stdout))).toMatchObject({ session: id, url: forms });

    const shot = await run(["screenshot", clickable, "-o", `${world.sb.tmp}/shot.png`]);
    expect(shot.code, shot.stderr).toBe(0);
    expect(json(shot.stdout)).toMatchObject({ session: id, url: clickable });

    world.fake.script(step("done", { message: "looked", success: true }));
    const agent = await run(["agent", "look at the page", "--max-steps", "2"]);
    expect(agent.code, agent.stderr).toBe(0);
    const result = agent.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; session?: string }).find((l) => l.type === "result");
    expect(result?.session).toBe(id);

    const both = await run(["extract", "--new", "--session", id, forms]);
    expect(both.code).toBe(2);
    expect(json<{ error: { code: string; message: string } }>(both.stdout).error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^--new and --session exclude each other/) });
  }, 180_000);
});
