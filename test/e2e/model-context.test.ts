/**
 * Context windows with the fake model's 2,048-token truncation mode (a server that silently drops a long prompt's
 * start): with `contextWindow: 2048` the snapshot is budgeted and an extract on a large page succeeds; without, the
 * same prompt is cut and it fails. A local preset with no window is budgeted for the server default, logged once; a
 * preset acts with no key.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { LogLine } from "../../src/options.js";
import { scriptTimes, step, stepRequests } from "./agent-support.js";
import { truncate, truncatingModel } from "../support/fake-model/local-modes.js";
import { rejection } from "../support/rejection.js";
import { useModelService, useModelWorld } from "../support/models.js";

const world = useModelWorld();
const logs: LogLine[] = [];
const env = useModelService(() => ({ model: { modelName: "openai/gpt-test", apiKey: "sk-test-key", baseURL: world.fake.baseURL() }, logger: (l: LogLine) => void logs.push(l) }));

const FILLER = Array.from({ length: 300 }, (_, i) => `<p>Line item ${i + 1}: standard shipping on a repeat order of garden supplies, billed monthly to the account on file.</p>`).join("");
const LARGE_BODY = `<h1>Invoice</h1><p>Invoice number: INV-20931</p><button>Pay now</button>${FILLER}`;
const Invoice = z.object({ invoiceNumber: z.string().regex(/INV-\d+/) });
const ask = "the invoice number";
/** A small fixture page whose body becomes a large one (~15,000 tokens of text, one button). */
async function openLarge(): Promise<void> {
  await env.svc.page.goto(world.server.url("site/index.html"));
  await env.svc.page.evaluate(`document.body.innerHTML = ${JSON.stringify(LARGE_BODY)}`);
}

describe("context windows", () => {
  it("contextWindow 2048: the snapshot is budgeted, the prompt fits the server's window, the extract succeeds", async () => {
    await openLarge();
    scriptTimes(world.fake, truncatingModel(2048), 4);
    const model = { modelName: "ollama/llama3.2", baseURL: world.fake.baseURL(), contextWindow: 2048 };
    const out = await env.svc.extract(ask, Invoice, { model });
    expect(out).toEqual({ invoiceNumber: "Invoice number: INV-20931" });
    const [req] = world.fake.requests;
    expect(world.fake.requests).toHaveLength(1);
    expect(truncate(req!, 2048).sent).toBeLessThanOrEqual(2048);
    expect(req!.snapshot).toMatch(/… \d+ text lines omitted \(token budget\)/);
  });

  it("without a window the server cuts the prompt's start and the extract fails", async () => {
    await openLarge();
    scriptTimes(world.fake, truncatingModel(2048), 4);
    const e = await rejection(env.svc.extract(ask, Invoice));
    expect(e.message).toMatch(/invoiceNumber/);
    const [req] = world.fake.requests;
    expect(truncate(req!, 2048).sent).toBeGreaterThan(2048);
  });

  it("a local preset with no stated window is budgeted for the server default (4096) and says so once in the log", async () => {
    await openLarge();
    logs.length = 0;
    scriptTimes(world.fake, truncatingModel(4096), 4);
    const model = { modelName: "ollama/qwen2.5:7b", baseURL: world.fake.baseURL() };
    expect(await env.svc.extract(ask, Invoice, { model })).toEqual({ invoiceNumber: "Invoice number: INV-20931" });
    expect(await env.svc.extract(ask, Invoice, { model })).toEqual({ invoiceNumber: "Invoice number: INV-20931" });
    for (const r of world.fake.requests) expect(truncate(r, 4096).sent).toBeLessThanOrEqual(4096);
    const warnings = logs.filter((l) => l.message.includes("context window"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain("ollama/qwen2.5:7b: page snapshots are budgeted for a 4096-token context window");
    expect(warnings[0]!.message).toContain("cannot set num_ctx per request");
  });

  it("an agent step is budgeted too: its whole prompt (system, tools, history, outline) fits the window", async () => {
    await openLarge();
    world.fake.script(step("think", { thought: "reading the invoice" }), step("done", { message: "INV-20931", success: true }));
    const agent = env.svc.agent({ model: { modelName: "ollama/llama3.2", baseURL: world.fake.baseURL(), contextWindow: 4096 } });
    const result = await agent.execute({ instruction: "read the invoice number", maxSteps: 3 });
    expect(result).toMatchObject({ completed: true, message: "INV-20931" });
    const steps = stepRequests(world.fake);
    expect(steps).toHaveLength(2);
    for (const r of steps) {
      expect(truncate(r, 4096).sent).toBeLessThanOrEqual(4096);
      expect(r.snapshot).toContain("Invoice number: INV-20931");
      expect(r.snapshot).toMatch(/… \d+ text lines omitted \(token budget\)/);
    }
  });

  it("a preset drives act against the fake at a preset-like base URL, with no key", async () => {
    await openLarge();
    const result = await env.svc.act("click Pay now", { model: { modelName: "lmstudio/qwen2.5-7b-instruct", baseURL: world.fake.baseURL() } });
    expect(result.success).toBe(true);
    const [req] = world.fake.requests;
    expect(req!.path).toBe("/v1/chat/completions");
    expect(req!.model).toBe("qwen2.5-7b-instruct");
    expect(req!.headers.authorization).toBeUndefined();
  });
});
