/**
 * The model-backed capabilities on the MCP door (`svc mcp` over stdio, the fake model on its real wire): the same
 * declaration as the CLI verb, so the tool takes what the verb takes (a selector, a timeout, the variables, act's Action).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { step } from "../e2e/agent-support.js";
import { type ModelWorld, startModelWorld } from "./helpers.js";
import { type CallResult, call, openStdio, text } from "./mcp-support.js";

let world: ModelWorld;
let client: Client;

beforeAll(async () => {
  world = await startModelWorld();
  // devtools: evaluate reads back what act typed.
  client = await openStdio(world.sb.env, ["--caps", "devtools"]);
  const nav = await call(client, "navigate", { url: world.server.url("forms.html") });
  expect(nav.isError, text(nav)).toBeFalsy();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await world?.close();
});

beforeEach(() => world.fake.reset());

const SECRET = "Ada Lovelace";

/** The value of a field of forms.html, read in the page. */
async function fieldValue(id: string): Promise<string> {
  const r = await call(client, "evaluate", { expression: `document.getElementById(${JSON.stringify(id)}).value` });
  expect(r.isError, text(r)).toBeFalsy();
  return JSON.parse(text(r)) as string;
}

describe("svc mcp: the model tools", () => {
  it("observe: the variables object reaches the model as names only; a selector narrows what it reads", async () => {
    const r = await call(client, "observe", { instruction: "find the field for %who%", variables: { who: SECRET }, selector: "#signup" });
    expect(r.isError, text(r)).toBeFalsy();
    const [sent] = world.fake.requestsFor("observe");
    expect(sent!.variables).toEqual(["who"]);
    expect(JSON.stringify(sent!.body)).not.toContain(SECRET);
    // Inside the form only: its fields, not the paragraph after it.
    expect(sent!.userText).toContain("Full name");
    expect(sent!.userText).not.toContain("Help: fill in the form");
    // One line per Action: selector, method(arguments), description.
    expect(text(r).split("\n")[0]).toMatch(/^(xpath=|\/)\S+ {2}\w+(\(.*\))? {2}\S/);
  });

  it("observe: a bad variable name is refused naming the property, before any model call", async () => {
    const r = await call(client, "observe", { instruction: "find %x y%", variables: { "x y": "1" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/variables/);
    expect(world.fake.requests).toHaveLength(0);
  });

  it("extract: no instruction reads the page's text with no model; a schema object gives an object that fits it", async () => {
    const plain = await call(client, "extract", { selector: "#help" });
    expect(plain.isError, text(plain)).toBeFalsy();
    expect(text(plain)).toContain("Help: fill in the form");
    expect(world.fake.requests).toHaveLength(0);
    const schema = { type: "object", properties: { help: { type: "string", format: "uri", description: "the Help link" } }, required: ["help"] };
    const r = await call(client, "extract", { instruction: "the help link", schema });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.parse(text(r))).toEqual({ help: `${world.server.url("forms.html")}#help` });
  });

  it("extract: a schema is an object on MCP (a path of the server's machine is never read); a model-only property needs an instruction", async () => {
    const path = await call(client, "extract", { instruction: "the help link", schema: "/etc/hostname" });
    expect(path.isError).toBe(true);
    expect(text(path)).toMatch(/schema: expected a JSON Schema object/);
    const timeout = await call(client, "extract", { timeout: 1000 });
    expect(text(timeout)).toMatch(/timeout applies to an instruction or schema/);
    expect(world.fake.requests).toHaveLength(0);
  });
  it("act: the variables object reaches the model as names only and the value the field; the report lists the step as the model wrote it", async () => {
    const r = await call(client, "act", { instruction: "please type %who% into the Full name field", variables: { who: SECRET }, timeout: 30_000 });
    expect(r.isError, text(r)).toBeFalsy();
    const [sent] = world.fake.requestsFor("act");
    expect(sent!.variables).toEqual(["who"]);
    for (const q of world.fake.requests) expect(JSON.stringify(q.body)).not.toContain(SECRET);
    // The step as the model wrote it, with the placeholder; the field holds the value, not the placeholder.
    expect(text(r).split("\n").slice(0, 2).join("\n")).toMatch(/^\w+ succeeded: .*Full name\n {2}\w+\("%who%"\) \S+$/);
    expect(await fieldValue("name")).toBe(SECRET);
  });

  it("act: a literal instruction is done with no model call and says model: none", async () => {
    const r = await call(client, "act", { instruction: 'click the "Help" link' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/^ {2}model: none$/m);
    expect(text(r)).toContain("clicked: help-link"); // the page after it
    expect(world.fake.requests).toHaveLength(0);
  });

  it("act: an Action object runs with no model call; a string is refused (no file of the server's machine is read); an instruction's properties are refused with it", async () => {
    const action = { selector: "#email", description: "the email field", method: "fill", arguments: ["grace@example.com"] };
    const r = await call(client, "act", { action });
    expect(r.isError, text(r)).toBeFalsy();
    expect(await fieldValue("email")).toBe("grace@example.com");
    const path = await call(client, "act", { action: "@/etc/hostname" });
    expect(path.isError).toBe(true);
    expect(text(path)).toMatch(/^INVALID_ARGUMENT: action: expected an Action object/);
    const both = await call(client, "act", { instruction: "fill the email", action });
    expect(text(both)).toMatch(/give either an instruction or action, not both/);
    const vars = await call(client, "act", { action, variables: { who: "x" } });
    expect(text(vars)).toMatch(/variables applies to an instruction, not to action/);
    const bad = await call(client, "act", { action: { ...action, method: "teleport" } });
    expect(text(bad)).toMatch(/unknown method "teleport"/);
    expect(world.fake.requests).toHaveLength(0);
  });

  it("agent: the CLI's run options on MCP too (a start URL, a mode, the variables as names only, a step budget), each step as progress; a one-door rule in MCP's words", async () => {
    const agentClient = await openStdio(world.sb.env, ["--caps", "agent"]);
    try {
      const think = step("think", { thought: "not yet" });
      world.fake.script(think, think, think);
      // A client that asks for progress (the SDK sends a progress token) gets one notification per step.
      const progress: { progress: number; total?: number; message?: string }[] = [];
      const args = { instruction: "greet %who%", url: world.server.url("forms.html"), mode: "hybrid", variables: { who: SECRET }, maxSteps: 2 };
      const r = (await agentClient.callTool({ name: "agent", arguments: args }, undefined, { onprogress: (p) => void progress.push(p) })) as CallResult;
      expect(r.isError, text(r)).toBeFalsy();
      expect(text(r)).toMatch(/^not done: stopped: reached the step limit \(maxSteps 2\)/);
      expect(progress).toEqual([1, 2].map((n) => ({ progress: n, total: 2, message: expect.stringMatching(new RegExp(`^step ${n}: think: `)) })));
      const steps = world.fake.requestsFor("agent_step");
      expect(steps).toHaveLength(2);
      // Its own browser opened the start URL; hybrid mode sends the model a screenshot.
      expect(steps[0]!.userText).toContain(world.server.url("forms.html"));
      expect(steps[0]!.userText).toMatch(/Screenshot: attached/);
      for (const q of steps) expect(JSON.stringify(q.body)).not.toContain(SECRET);
      const bad = await call(agentClient, "agent", { instruction: "look", loopDetection: false, loopRepeats: 3 });
      expect(text(bad)).toBe("INVALID_ARGUMENT: loopDetection cannot be combined with loopRepeats or loopWarnings");
      expect(world.fake.requestsFor("agent_step")).toHaveLength(2);
    } finally {
      await agentClient.close();
    }
  }, 120_000);
});
