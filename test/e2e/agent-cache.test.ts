/**
 * The agent cache: a successful run is stored (refs as XPaths, variables as %name% with salted digests of their
 * values in the key, the final answer with its page's fingerprint); an identical run replays with no model, then lets
 * the model read the page now for the answer, never reporting one it did not observe. A step that no longer fits
 * hands over to the model and refreshes the entry.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FakeReplyFn } from "../support/fake-model.js";
import { textIn } from "../support/browser.js";
import { filesUnder, refOf, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { centerOf, eventLog, lineOf, scriptTimes, siteBrain, step, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const wire = WIRES[0]!;
const TASK = "Order two Boston Ferns with express delivery for %customer% (%email%)";

describe("agent cache", () => {
  const dirs = { cache: "", adaKey: "" };
  const env = useModelService(() => ({ model: wire.model(world.fake), cacheDir: (dirs.cache = tempDir()) }));
  const start = () => world.server.url("site/index.html");
  const run = async (customer: string) => {
    await env.svc.page.goto(start());
    return env.svc.agent().execute({ instruction: TASK, variables: { customer, email: "x@example.com" } });
  };
  /** The entry of the first run (Ada Lovelace's key). */
  const entryFile = () => join(dirs.cache, "agent", `${dirs.adaKey}.json`);

  it("stores a run with its final answer; the same values replay it and, on the same page, answer with no model call; other values miss", async () => {
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const first = await run("Ada Lovelace");
    expect(first).toMatchObject({ completed: true, metadata: { cacheStatus: "MISS" } });
    dirs.adaKey = first.metadata!.cacheKey as string;
    expect(stepRequests(world.fake).length).toBe(7);
    const entry = JSON.parse(readFileSync(entryFile(), "utf8"));
    expect(entry.steps.map((s: { tool: string }) => s.tool)).toEqual(["perform", "keys", "perform", "perform", "fillForm", "perform"]);
    expect(entry.steps[0].args.ref).toMatch(/^xpath=/);
    for (const f of filesUnder(dirs.cache)) for (const value of ["Ada Lovelace", "Ada+Lovelace", "x@example.com"]) expect(f.text).not.toContain(value);

    world.fake.reset();
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const log = eventLog();
    await env.svc.page.goto(start());
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const second = await agent.execute({ instruction: TASK, variables: { customer: "Ada Lovelace", email: "x@example.com" } });
    // The replay reached the same confirmation page the stored answer was read from: no model call.
    expect(stepRequests(world.fake)).toHaveLength(0);
    const number = await textIn(env.svc.page, "#order-number");
    expect(second).toMatchObject({ completed: true, success: true, message: `Order ${number} is placed.`, metadata: { cacheStatus: "HIT" } });
    expect(second.message).toBe(first.message);
    expect(second.actions.every((a) => a.cached === true)).toBe(true);
    expect(second.usage!.input_tokens).toBe(0);
    expect(log.events.some((e) => e.type === "log" && /^replayed 6 cached step\(s\); the page matches/.test(e.message))).toBe(true);
    // A HIT answered from the cache leaves the entry as it was.
    expect(JSON.parse(readFileSync(entryFile(), "utf8")).createdAt).toBe(entry.createdAt);

    // Other values, another key: the model runs the task.
    world.fake.reset();
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const other = await run("Grace Hopper");
    expect(other).toMatchObject({ completed: true, success: true, metadata: { cacheStatus: "MISS" } });
    expect(other.metadata!.cacheKey).not.toBe(first.metadata!.cacheKey);
    expect(await textIn(env.svc.page, "#summary")).toBe("Grace Hopper ordered 2 × Boston Fern, delivery: Express.");
    expect(other.message).toBe(`Order ${await textIn(env.svc.page, "#order-number")} is placed.`);
    for (const f of filesUnder(dirs.cache)) expect(f.text).not.toContain("Grace Hopper");
  });

  it("falls back to the model from the first step that no longer fits, then refreshes the entry", async () => {
    // The "Order this plant" link moved: its recorded XPath no longer resolves.
    const file = entryFile();
    const entry = JSON.parse(readFileSync(file, "utf8"));
    const i = entry.steps.findIndex((s: { tool: string; args: { ref?: string } }, n: number) => n > 2 && s.tool === "perform" && /\/p\[\d+\]\/a$/.test(s.args.ref ?? ""));
    expect(i).toBeGreaterThan(0);
    entry.steps[i].args.ref = "xpath=/html/body/p[99]/a";
    writeFileSync(file, JSON.stringify(entry));

    world.fake.reset();
    scriptTimes(world.fake, siteBrain({ start: start() }));
    const log = eventLog();
    await env.svc.page.goto(start());
    const agent = env.svc.agent();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: TASK, variables: { customer: "Ada Lovelace", email: "x@example.com" } });
    expect(result).toMatchObject({ completed: true, success: true, metadata: { cacheStatus: "PARTIAL" } });
    expect(await textIn(env.svc.page, "#summary")).toBe("Ada Lovelace ordered 2 × Boston Fern, delivery: Express.");
    const cached = result.actions.filter((a) => a.cached);
    expect(cached).toHaveLength(i + 1);
    expect(cached.at(-1)).toMatchObject({ ok: false });
    // The model picked up on the item page, told which steps were replayed.
    const reqs = stepRequests(world.fake);
    expect(reqs.length).toBeGreaterThan(0);
    expect(reqs.length).toBeLessThan(7);
    expect(reqs[0]!.url).toContain("/site/item.html");
    expect(reqs[0]!.note).toContain(`were replayed from a cache; step ${i + 1} failed`);
    expect(log.events.some((e) => e.type === "log" && e.message.startsWith("cache replay stopped"))).toBe(true);
    // Refreshed: the next run replays fully again.
    expect(readFileSync(file, "utf8")).not.toContain("p[99]");
  });
});

/**
 * The case on fixtures/pages/orders.html, whose order number depends on the customer and on how
 * many orders were placed before: a run for Bob after one for Alice, and Alice's task again, each report
 * the number their own page shows, never the recorded run's.
 */
describe("agent cache: the answer is the page's, not the recording's", () => {
  const dirs = { cache: "" };
  const env = useModelService(() => ({ model: wire.model(world.fake), cacheDir: (dirs.cache = tempDir()) }));
  const ORDER = "Place an order for %customer% and tell me the order number";
  const brain: FakeReplyFn = (req) => {
    const number = /Order number: (ORD-[\d-]+)/.exec(req.snapshot)?.[1];
    if (number) return step("done", { message: `Order ${number} is placed.`, success: true });
    const box = lineOf(req, "textbox", "Customer");
    if (box && !box.value) return step("fillForm", { fields: [{ ref: box.ref, value: "%customer%" }] });
    return step("perform", { ref: refOf(req, "button", "Place order"), method: "click", arguments: [] });
  };
  const order = async (customer: string) => {
    world.fake.reset();
    scriptTimes(world.fake, brain, 10);
    await env.svc.page.goto(world.server.url("orders.html"));
    const result = await env.svc.agent().execute({ instruction: ORDER, variables: { customer } });
    return { result, shown: await textIn(env.svc.page, "#result"), calls: stepRequests(world.fake).length };
  };

  it("Bob's run after Alice's and Alice's second run each report the order number on their page", async () => {
    const alice = await order("Alice");
    expect(alice.result).toMatchObject({ success: true, metadata: { cacheStatus: "MISS" } });
    expect(alice.calls).toBe(3);

    const bob = await order("Bob");
    expect(bob.shown).not.toBe(alice.shown);
    expect(bob.result.message).toBe(`Order ${bob.shown.replace("Order number: ", "")} is placed.`);
    expect(bob.result.metadata).toMatchObject({ cacheStatus: "MISS" });

    const again = await order("Alice");
    expect(again.shown).not.toBe(alice.shown); // the shop's next order
    expect(again.result).toMatchObject({ success: true, message: `Order ${again.shown.replace("Order number: ", "")} is placed.`, metadata: { cacheStatus: "HIT", cacheKey: alice.result.metadata!.cacheKey } });
    expect(again.calls).toBe(1);

    // A budget that ends the run right after the replay: no answer is made up, and the message says so.
    world.fake.reset();
    await env.svc.page.goto(world.server.url("orders.html"));
    const cut = await env.svc.agent().execute({ instruction: ORDER, variables: { customer: "Alice" }, maxSteps: 2 });
    expect(cut).toMatchObject({ success: false, completed: false, metadata: { cacheStatus: "HIT", stopReason: "maxSteps" } });
    expect(cut.message).toBe("stopped: reached the step limit (maxSteps 2) before the task was done (2 step(s) were replayed from the agent cache; the final answer was not recomputed)");
    expect(world.fake.requests).toHaveLength(0);

    // On disk: the names and the salt, never the values or an earlier answer.
    const files = filesUnder(dirs.cache);
    for (const f of files) for (const text of ["Alice", "Bob"]) expect(f.text).not.toContain(text);
    const salt = files.find((f) => f.path.endsWith("/agent/.salt"))!;
    expect(salt.text).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(salt.path).mode & 0o777).toBe(0o600);
  });
});

/** cua mode: the computer actions replay, then the computer-use model starts on the replayed page, told so. */
describe("agent cache in cua mode", () => {
  const responses = WIRES.find((w) => w.format === "responses")!;
  const env = useModelService(() => ({ model: responses.model(world.fake), cacheDir: tempDir() }));
  const ORDER = "Place an order for %customer% and tell me the order number";
  const shown = async () => (await textIn(env.svc.page, "#result")).replace("Order number: ", "");
  const final = async () => ({ kind: "computer", actions: [], text: `Order ${await shown()} is placed.` });
  const clickOn = (selector: string) => async () => ({ kind: "computer", actions: [{ type: "click", button: "left", ...(await centerOf(env.svc.page, selector)) }] });
  const order = async () => {
    await env.svc.page.goto(world.server.url("orders.html"));
    return env.svc.agent({ mode: "cua" }).execute({ instruction: ORDER, variables: { customer: "Carol" } });
  };

  it("a HIT replays the computer actions and the model answers from the page it reached", async () => {
    world.fake.script(clickOn("#customer"), { kind: "computer", actions: [{ type: "type", text: "%customer%" }] }, clickOn("#place"), final);
    const first = await order();
    expect(first).toMatchObject({ success: true, message: `Order ${await shown()} is placed.`, metadata: { cacheStatus: "MISS" } });

    world.fake.reset();
    world.fake.script(final);
    const again = await order();
    expect(await shown()).not.toBe(first.message.replace(/^Order | is placed\.$/g, ""));
    expect(again).toMatchObject({ success: true, message: `Order ${await shown()} is placed.`, metadata: { cacheStatus: "HIT" } });
    expect(again.actions.map((a) => a.cached ?? false)).toEqual([true, true, true, false]);
    expect(world.fake.requests).toHaveLength(1);
    expect(JSON.stringify(world.fake.requests[0]!.body)).toContain("were replayed from a cache of an earlier run");
  });
});

/**
 * Issue 22: a cached run keeps its final answer with a fingerprint of the page it was read from. A replay
 * that reaches the same page returns that answer with no model call; on a changed page the model answers.
 */
describe("agent cache: an unchanged page is answered from the cache", () => {
  const env = useModelService(() => ({ model: wire.model(world.fake), cacheDir: tempDir() }));
  const TASK_PRICE = "Show the price and tell me what it is";
  const brain: FakeReplyFn = (req) => {
    const price = /Price: (\d+) EUR/.exec(req.snapshot)?.[1];
    if (price) return step("done", { message: `The price is ${price} EUR.`, success: true });
    return step("perform", { ref: refOf(req, "button", "Show price"), method: "click", arguments: [] });
  };
  const check = async (price?: string, page = "price.html") => {
    world.fake.reset();
    scriptTimes(world.fake, brain, 10);
    await env.svc.page.goto(world.server.url(page));
    await env.svc.page.evaluate((p: string | null) => (p === null ? localStorage.removeItem("price") : localStorage.setItem("price", p)), price ?? null);
    const result = await env.svc.agent().execute({ instruction: TASK_PRICE });
    return { result, calls: stepRequests(world.fake).length };
  };

  it("replays unchanged with zero model calls and the stored answer; a changed page costs one call and gets the new answer", async () => {
    const first = await check();
    expect(first.result).toMatchObject({ success: true, message: "The price is 10 EUR.", metadata: { cacheStatus: "MISS" } });
    expect(first.calls).toBe(2);

    const same = await check();
    expect(same.result).toMatchObject({ success: true, completed: true, message: "The price is 10 EUR.", metadata: { cacheStatus: "HIT" } });
    expect(same.calls).toBe(0);
    expect(world.fake.requests).toHaveLength(0);

    const changed = await check("12");
    expect(changed.result).toMatchObject({ success: true, message: "The price is 12 EUR.", metadata: { cacheStatus: "HIT" } });
    expect(changed.calls).toBe(1);

    // The entry now holds the new answer: the changed page again is free.
    const again = await check("12");
    expect(again.result).toMatchObject({ message: "The price is 12 EUR.", metadata: { cacheStatus: "HIT" } });
    expect(again.calls).toBe(0);
  });

  it("an answer read from an iframe: a changed iframe is a changed page (the main document's text is the same)", async () => {
    const first = await check(undefined, "price-frame.html");
    expect(first.result).toMatchObject({ success: true, message: "The price is 10 EUR." });
    const same = await check(undefined, "price-frame.html");
    expect(same).toMatchObject({ calls: 0, result: { message: "The price is 10 EUR.", metadata: { cacheStatus: "HIT" } } });
    const changed = await check("12", "price-frame.html");
    expect(changed.calls).toBe(1);
    expect(changed.result).toMatchObject({ success: true, message: "The price is 12 EUR.", metadata: { cacheStatus: "HIT" } });
  });
});
