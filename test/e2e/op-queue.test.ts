/**
 * One operation at a time per page (real Chrome): acts sent while a navigation runs wait for it and act on
 * the new document, in the order they were sent; the caller's own page.evaluate does not wait in that line.
 */
import { describe, expect, it } from "vitest";
import { action } from "../support/browser.js";
import { useModelService, useModelWorld, WIRES } from "../support/models.js";
import { step } from "./agent-support.js";

const world = useModelWorld();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake) }));
const server = { url: (path: string) => world.server.url(path) };


describe("operations on one page", () => {
  it("10 acts sent while a navigation runs all wait for it and act, in order, on the new page", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    // The same page again, answered after 1.5 s: until then the old document (its own #bio) is still there.
    const navigating = page.goto(server.url("/slow?ms=1500&page=forms.html"));
    const acts = Array.from({ length: 10 }, (_, i) => env.svc.act(action("type", "#bio", [String(i)])));
    const results = await Promise.allSettled([navigating, ...acts]);
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(Array(11).fill("ok"));
    expect(page.url()).toContain("/slow?ms=1500");
    expect(await page.evaluate(`document.getElementById("bio").value`)).toBe("0123456789");
  });

  it("a navigation sent while an act types waits for the act to end; the act is not cut off", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    await page.evaluate(`document.getElementById("bio").addEventListener("keydown", () => { const t = performance.now(); while (performance.now() - t < 10) {} })`);
    const order: string[] = [];
    const typing = env.svc.act(action("type", "#bio", ["z".repeat(80)])).then(() => order.push("act"));
    await new Promise((r) => setTimeout(r, 200));
    const navigating = page.goto(server.url("forms.html?again")).then(() => order.push("goto"));
    await Promise.all([typing, navigating]);
    expect(order).toEqual(["act", "goto"]);
    expect(page.url()).toContain("?again");
  });

  it("the caller's page.evaluate does not queue behind a running act", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    await page.evaluate(`document.getElementById("bio").addEventListener("keydown", () => { const t = performance.now(); while (performance.now() - t < 20) {} })`);
    const typing = env.svc.act(action("type", "#bio", ["y".repeat(100)]));
    typing.catch(() => {}); // awaited below
    await new Promise((r) => setTimeout(r, 300));
    const length = await page.evaluate<number>(`document.getElementById("bio").value.length`);
    expect(length).toBeGreaterThan(0);
    expect(length).toBeLessThan(100);
    await typing;
    expect(await page.evaluate(`document.getElementById("bio").value.length`)).toBe(100);
  });

  it("an act sent while an agent runs on the page waits for the run to end", async () => {
    const page = env.svc.page;
    await page.goto(server.url("forms.html"));
    world.fake.script(step("wait", { ms: 800 }), step("done", { message: "waited", success: true }));
    const order: string[] = [];
    const running = env.svc.agent().execute({ instruction: "wait a little" }).then(() => order.push("agent"));
    await new Promise((r) => setTimeout(r, 300));
    const acting = env.svc.act(action("type", "#bio", ["q"])).then(() => order.push("act"));
    await Promise.all([running, acting]);
    expect(order).toEqual(["agent", "act"]);
  });
});
