/**
 * A cacheDir that cannot be written (here a regular file, so every write fails with ENOTDIR): act performs
 * the click and resolves with its real result, the agent finishes its run; each failed cache write is a
 * warning in the service's log, never the operation's failure.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectText, logSink, refOf, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { eventLog, step } from "./agent-support.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const logs = logSink();

describe("unwritable cacheDir", () => {
  const env = useModelService(() => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "a file where the cache directory should be");
    return { model: WIRES[0]!.model(world.fake), cacheDir: file, logger: logs.logger };
  });

  it("act: the click happens and act resolves with its result; the cache failure is a warning in the log", async () => {
    await env.svc.page.goto(world.server.url("forms.html?case=unwritable"));
    const result = await env.svc.act("please check the Subscribe to newsletter checkbox");
    expect(result).toMatchObject({ success: true, cacheStatus: "MISS" });
    await expectText(env.svc.page, "#log", "subscribe: true");
    const warning = logs.lines.find((l) => l.category === "act" && l.message.startsWith("warning: the action cache was not written"));
    expect(warning, logs.text()).toBeDefined();
    expect(warning!.level).toBe(0);
    expect(warning!.message).toMatch(/not a directory|ENOTDIR|EEXIST/i);
  });

  it("agent: the run succeeds; the cache failure is a warning event and a log line", async () => {
    await env.svc.page.goto(world.server.url("forms.html?case=unwritable-agent"));
    world.fake.script((req) => step("perform", { ref: refOf(req, "checkbox", "Subscribe to newsletter"), method: "click", arguments: [] }), step("done", { message: "subscribed", success: true }));
    const events = eventLog();
    const agent = env.svc.agent();
    agent.subscribe(events.listener);
    const result = await agent.execute("subscribe to the newsletter");
    expect(result).toMatchObject({ success: true, completed: true, message: "subscribed", metadata: { cacheStatus: "MISS" } });
    expect(events.events.some((e) => e.type === "log" && e.level === "warn" && e.message.startsWith("the agent cache was not written"))).toBe(true);
    expect(logs.lines.some((l) => l.category === "agent" && l.message.startsWith("warning: the agent cache was not written")), logs.text()).toBe(true);
  });
});
