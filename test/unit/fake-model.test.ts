/**
 * The fake model server, driven by the REAL openai and @anthropic-ai/sdk clients: every wire format in
 * JSON and streaming form, automatic answers from the prompt, scripted errors and malformed replies, and
 * the request record tests assert on.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { AzureOpenAI } from "openai";
import { describe, expect, it } from "vitest";
import { ACT_OUTPUT, EXTRACT_TEXT_OUTPUT, OBSERVE_OUTPUT, actSystemPrompt, observeSystemPrompt, userMessage } from "../../src/operations/prompts.js";
import type { StructuredOutput } from "../../src/model/types.js";
import { answerAct, answerExtract, answerObserve, parsePrompt } from "../support/fake-model.js";
import { useFakeModel } from "../support/use-fake-model.js";

const SNAPSHOT = [
  "h1 Sign up",
  "e1 textbox Email",
  "e2 textbox Password",
  "e3 checkbox Remember me [checked]",
  "e4 combobox Country: Choose a country",
  "  options: Choose a country | France | Japan",
  "Fruit:",
  "e5 button Choose a fruit",
  "e6 link Terms of service",
  "e7 link Privacy policy",
  "Price | Qty | Total",
  "$5 | 2 | $10",
  "iframe Payment",
  "  e8 textbox Card number",
  "  e9 button Pay",
  "e10 button Submit",
].join("\n");

const URL_ = "http://localhost:1234/signup.html";
const prompt = (instruction: string, extra: { variables?: Array<{ name: string; description?: string }>; note?: string; snapshot?: string } = {}): string =>
  userMessage({ instruction, url: URL_, snapshot: extra.snapshot ?? SNAPSHOT, ...(extra.variables ? { variables: extra.variables } : {}), ...(extra.note ? { note: extra.note } : {}) });
const act = (instruction: string, extra?: Parameters<typeof prompt>[1]) => answerAct(parsePrompt(prompt(instruction, extra)));

const fake = useFakeModel();

const openai = (opts: { maxRetries?: number; baseURL?: string } = {}) => new OpenAI({ apiKey: "sk-test", baseURL: opts.baseURL ?? fake.baseURL(), maxRetries: opts.maxRetries ?? 2 });
const anthropic = (opts: { maxRetries?: number } = {}) => new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.baseURL("anthropic"), maxRetries: opts.maxRetries ?? 2 });

const responsesBody = (out: StructuredOutput, user: string) => ({
  model: "gpt-test",
  instructions: actSystemPrompt(),
  input: [{ role: "user" as const, content: user }],
  text: { format: { type: "json_schema" as const, name: out.name, schema: out.schema, strict: out.strict } },
});
const chatBody = (out: StructuredOutput, user: string) => ({
  model: "gpt-test",
  messages: [
    { role: "system" as const, content: actSystemPrompt() },
    { role: "user" as const, content: user },
  ],
  response_format: { type: "json_schema" as const, json_schema: { name: out.name, schema: out.schema, strict: out.strict } },
});
const anthropicBody = (out: StructuredOutput, user: string) => ({
  model: "claude-test",
  max_tokens: 1024,
  system: actSystemPrompt(),
  messages: [{ role: "user" as const, content: user }],
  tools: [{ name: out.name, description: "answer", input_schema: out.schema as Anthropic.Tool.InputSchema }],
  tool_choice: { type: "tool" as const, name: out.name },
});

describe("OpenAI Responses", () => {
  it("answers JSON with usage", async () => {
    const rsp = await openai().responses.create(responsesBody(ACT_OUTPUT, prompt("click the Submit button")));
    expect(JSON.parse(rsp.output_text)).toEqual({ ref: "e10", method: "click", arguments: [], description: "button Submit", twoStep: false });
    expect(rsp.status).toBe("completed");
    expect(rsp.usage!.input_tokens).toBeGreaterThan(100);
    expect(rsp.usage!.output_tokens).toBe(Math.ceil(rsp.output_text.length / 4));
    expect(rsp.usage!.input_tokens_details.cached_tokens).toBe(0);
    expect(rsp.usage!.output_tokens_details.reasoning_tokens).toBe(0);
    expect(rsp.usage!.total_tokens).toBe(rsp.usage!.input_tokens + rsp.usage!.output_tokens);
  });

  it("streams the event sequence the SDK expects", async () => {
    const stream = await openai().responses.create({ ...responsesBody(ACT_OUTPUT, prompt("click the Pay button")), stream: true });
    const types: string[] = [];
    let text = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "response.output_text.delta") text += ev.delta;
      if (ev.type === "response.completed") completed = ev.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.output_text.done");
    expect(types.at(-1)).toBe("response.completed");
    expect(JSON.parse(text).ref).toBe("e9");
    expect(completed!.usage!.output_tokens).toBeGreaterThan(0);
  });

  it("works with the SDK's responses.stream() helper", async () => {
    const final = await openai().responses.stream(responsesBody(ACT_OUTPUT, prompt("click the Submit button"))).finalResponse();
    expect(JSON.parse(final.output_text).ref).toBe("e10");
    expect(final.usage!.input_tokens).toBeGreaterThan(0);
  });

  it("accepts any path prefix before /v1", async () => {
    const rsp = await openai({ baseURL: fake.baseURL("openai", "/some/prefix") }).responses.create(responsesBody(ACT_OUTPUT, prompt("click Submit")));
    expect(JSON.parse(rsp.output_text).ref).toBe("e10");
    expect(fake.requests[0]!.path).toBe("/some/prefix/v1/responses");
  });
});

describe("OpenAI Chat Completions", () => {
  it("answers JSON with usage", async () => {
    const rsp = await openai().chat.completions.create(chatBody(ACT_OUTPUT, prompt('type "ada@example.com" into the email field')));
    expect(JSON.parse(rsp.choices[0]!.message.content!)).toMatchObject({ ref: "e1", method: "fill", arguments: ["ada@example.com"] });
    expect(rsp.usage!.prompt_tokens).toBeGreaterThan(100);
    expect(rsp.usage!.completion_tokens).toBeGreaterThan(0);
    expect(rsp.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    expect(rsp.usage!.completion_tokens_details!.reasoning_tokens).toBe(0);
  });

  it("streams chunks, a usage chunk with include_usage, then [DONE]", async () => {
    const stream = await openai().chat.completions.create({ ...chatBody(ACT_OUTPUT, prompt("click the Submit button")), stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(JSON.parse(text).ref).toBe("e10");
    expect(usage!.prompt_tokens).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBe(Math.ceil(text.length / 4));
  });

  it("works with the SDK's chat.completions.stream() helper", async () => {
    const final = await openai().chat.completions.stream({ ...chatBody(ACT_OUTPUT, prompt("click the Pay button")), stream_options: { include_usage: true } }).finalChatCompletion();
    expect(JSON.parse(final.choices[0]!.message.content!).ref).toBe("e9");
  });

  it("serves Azure deployment paths (api-key header, api-version query)", async () => {
    const azure = new AzureOpenAI({ endpoint: fake.baseURL("azure"), apiKey: "az-key", apiVersion: "2024-10-21", deployment: "gpt-dep", maxRetries: 0 });
    const rsp = await azure.chat.completions.create(chatBody(ACT_OUTPUT, prompt("click Submit")));
    expect(JSON.parse(rsp.choices[0]!.message.content!).ref).toBe("e10");
    const rec = fake.requests[0]!;
    expect(rec.path).toBe("/openai/deployments/gpt-dep/chat/completions");
    expect(rec.query["api-version"]).toBe("2024-10-21");
    expect(rec.headers["api-key"]).toBe("az-key");
  });
});

describe("Anthropic Messages", () => {
  it("answers with a tool_use block and usage", async () => {
    const msg = await anthropic().messages.create(anthropicBody(ACT_OUTPUT, prompt("select Japan from the country dropdown")));
    expect(msg.stop_reason).toBe("tool_use");
    const block = msg.content[0]!;
    expect(block.type).toBe("tool_use");
    expect(block.type === "tool_use" && block.input).toMatchObject({ ref: "e4", method: "selectOptionFromDropdown", arguments: ["Japan"] });
    expect(msg.usage.input_tokens).toBeGreaterThan(100);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
    expect(msg.usage.cache_read_input_tokens).toBe(0);
    // @anthropic-ai/sdk 1.x sends the key as a bearer token (older versions: x-api-key).
    const { headers } = fake.requests[0]!;
    expect(headers["x-api-key"] ?? headers.authorization).toMatch(/sk-ant-test$/);
  });

  it("streams input_json_delta events (raw stream)", async () => {
    const stream = await anthropic().messages.create({ ...anthropicBody(ACT_OUTPUT, prompt("click the Submit button")), stream: true });
    const types: string[] = [];
    let json = "";
    let outputTokens = 0;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "content_block_delta" && ev.delta.type === "input_json_delta") json += ev.delta.partial_json;
      if (ev.type === "message_delta") outputTokens = ev.usage.output_tokens;
    }
    expect(types).toEqual(["message_start", "content_block_start", ...types.slice(2, -3).map(() => "content_block_delta"), "content_block_stop", "message_delta", "message_stop"]);
    expect(JSON.parse(json).ref).toBe("e10");
    expect(outputTokens).toBeGreaterThan(0);
  });

  it("works with the SDK's messages.stream() helper", async () => {
    const final = await anthropic().messages.stream(anthropicBody(ACT_OUTPUT, prompt("click the Pay button"))).finalMessage();
    const block = final.content[0]!;
    expect(block.type === "tool_use" && (block.input as { ref: string }).ref).toBe("e9");
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBeGreaterThan(1);
  });
});

describe("automatic answers", () => {
  it("act: picks the ref and infers method and arguments", () => {
    expect(act("click the Submit button")).toEqual({ ref: "e10", method: "click", arguments: [], description: "button Submit", twoStep: false });
    expect(act('type "ada@example.com" into the email field')).toMatchObject({ ref: "e1", method: "fill", arguments: ["ada@example.com"] });
    expect(act("fill the password field with %pw%", { variables: [{ name: "pw" }] })).toMatchObject({ ref: "e2", method: "fill", arguments: ["%pw%"] });
    expect(act("type %email% into the email field", { variables: [{ name: "email", description: "login" }] })).toMatchObject({ ref: "e1", arguments: ["%email%"] });
    expect(act("select Japan from the country dropdown")).toMatchObject({ ref: "e4", method: "selectOptionFromDropdown", arguments: ["Japan"] });
    expect(act("press Enter in the card number field")).toMatchObject({ ref: "e8", method: "press", arguments: ["Enter"] });
    expect(act("hover over the privacy policy link")).toMatchObject({ ref: "e7", method: "hover" });
    expect(act("double click the pay button")).toMatchObject({ ref: "e9", method: "doubleClick" });
    expect(act("check remember me")).toMatchObject({ ref: "e3", method: "click" });
    expect(act("choose the France option")).toMatchObject({ ref: "e4", method: "selectOptionFromDropdown", arguments: ["France"] });
    expect(act("drag the pay button to the submit button")).toMatchObject({ ref: "e9", method: "dragAndDrop", arguments: ["e10"] });
    expect(act("scroll to 50%")).toMatchObject({ method: "scrollTo", arguments: ["50%"] });
    expect(act("click the unicorn").ref).toBe("");
  });

  it("act: a custom dropdown takes two steps (twoStep, then the option)", () => {
    expect(act("choose Banana from the fruit dropdown")).toMatchObject({ ref: "e5", method: "click", twoStep: true });
    const opened = SNAPSHOT.replace("e5 button Choose a fruit", "e5 button Choose a fruit [expanded]\ne11 listbox Fruits\n  e12 option Apple\n  e13 option Banana");
    const note = 'Note: the previous step (click on "button Choose a fruit") opened a dropdown. Now choose the option that completes the instruction; set twoStep to false.';
    expect(act("choose Banana from the fruit dropdown", { snapshot: opened, note })).toMatchObject({ ref: "e13", method: "click", twoStep: false });
  });

  it("observe: the top three matches", () => {
    const { elements } = answerObserve(parsePrompt(prompt("find the links about terms or privacy")));
    expect(elements.map((e) => e.ref)).toEqual(["e6", "e7"]);
    expect(answerObserve(parsePrompt(prompt(""))).elements.map((e) => e.ref)).toEqual(["e1", "e2", "e3"]);
  });

  it("extract: best matching lines for {extraction}, a minimal valid object for other schemas", () => {
    expect(answerExtract(parsePrompt(prompt("extract the price")), EXTRACT_TEXT_OUTPUT.schema)).toEqual({ extraction: "Price | Qty | Total" });
    const schema = {
      type: "object",
      properties: {
        title: { type: "string" },
        termsUrl: { type: "string", description: "ref of the link element (e.g. e12)" },
        count: { type: "integer", minimum: 1 },
        done: { type: "boolean" },
        items: { type: "array", items: { type: "object", properties: { name: { type: ["string", "null"] } }, required: ["name"] } },
        kind: { enum: ["a", "b"] },
      },
      required: ["title", "termsUrl", "count", "done", "items", "kind"],
    };
    const out = answerExtract(parsePrompt(prompt("the terms link and the page title")), schema) as Record<string, unknown>;
    expect(out).toMatchObject({ termsUrl: "e6", count: 1, done: false, kind: "a" });
    expect(typeof out.title).toBe("string");
    expect(out.items).toHaveLength(1);
  });

  it("observe and extract over the wire", async () => {
    const rsp = await openai().responses.create(responsesBody(OBSERVE_OUTPUT, prompt("the email and password fields")));
    expect(JSON.parse(rsp.output_text).elements.map((e: { ref: string }) => e.ref)).toEqual(["e1", "e2"]);
    const ex = await anthropic().messages.create(anthropicBody(EXTRACT_TEXT_OUTPUT, prompt("what is the price")));
    expect(ex.content[0]!.type === "tool_use" && ex.content[0].input).toEqual({ extraction: "Price | Qty | Total" });
  });
});

describe("scripts", () => {
  it("returns scripted objects in order, then answers automatically", async () => {
    fake.script({ ref: "e2", method: "click", arguments: [], description: "scripted", twoStep: false }, (req, auto) => ({ ...(auto() as object), description: `for ${req.instruction}` }));
    const c = openai().chat.completions;
    const first = JSON.parse((await c.create(chatBody(ACT_OUTPUT, prompt("click Submit")))).choices[0]!.message.content!);
    const second = JSON.parse((await c.create(chatBody(ACT_OUTPUT, prompt("click Submit")))).choices[0]!.message.content!);
    const third = JSON.parse((await c.create(chatBody(ACT_OUTPUT, prompt("click Pay")))).choices[0]!.message.content!);
    expect([first.ref, first.description, second.ref, second.description, third.ref]).toEqual(["e2", "scripted", "e10", "for click Submit", "e9"]);
    expect(fake.queued).toBe(0);
  });

  it("a reply can set usage (input counts cached tokens; Anthropic's input_tokens leaves them out)", async () => {
    const value = { ref: "e1", method: "click", arguments: [], description: "x", twoStep: false };
    fake.script({ kind: "object", value, usage: { input: 100, cached: 40, reasoning: 7 } }, { kind: "object", value, usage: { input: 100, cached: 40 } });
    const rsp = await openai().responses.create(responsesBody(ACT_OUTPUT, prompt("click Submit")));
    expect(rsp.usage).toMatchObject({ input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens_details: { reasoning_tokens: 7 } });
    const msg = await anthropic().messages.create(anthropicBody(ACT_OUTPUT, prompt("click Submit")));
    expect(msg.usage).toMatchObject({ input_tokens: 60, cache_read_input_tokens: 40 });
  });

  it("a 429 with retry-after makes the SDK retry, then succeed", async () => {
    fake.script({ kind: "status", status: 429, headers: { "retry-after": "0" } });
    const rsp = await openai().responses.create(responsesBody(ACT_OUTPUT, prompt("click Submit")));
    expect(JSON.parse(rsp.output_text).ref).toBe("e10");
    expect(fake.requests.map((r) => r.response?.status)).toEqual([429, 200]);
  });

  it("a 429 on Anthropic is retried too", async () => {
    fake.script({ kind: "status", status: 429 });
    const msg = await anthropic().messages.create(anthropicBody(ACT_OUTPUT, prompt("click Submit")));
    expect(msg.content[0]!.type).toBe("tool_use");
    expect(fake.requests).toHaveLength(2);
  });

  it("500s beyond maxRetries surface as the SDK's error", async () => {
    fake.script({ kind: "status", status: 500 }, { kind: "status", status: 500 }, { kind: "status", status: 500 });
    await expect(openai({ maxRetries: 1 }).chat.completions.create(chatBody(ACT_OUTPUT, prompt("click Submit")))).rejects.toMatchObject({ status: 500 });
    expect(fake.requests).toHaveLength(2);
    fake.reset();
    fake.script({ kind: "status", status: 500 }, { kind: "status", status: 500 });
    const err = await anthropic({ maxRetries: 1 }).messages.create(anthropicBody(ACT_OUTPUT, prompt("click Submit"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect(fake.requests).toHaveLength(2);
  });

  it("malformed replies are not JSON", async () => {
    fake.script({ kind: "malformed" }, { kind: "malformed" }, { kind: "json", text: '{"ref": "e1"' });
    const rsp = await openai().responses.create(responsesBody(ACT_OUTPUT, prompt("click Submit")));
    expect(() => JSON.parse(rsp.output_text)).toThrow();
    const msg = await anthropic().messages.create(anthropicBody(ACT_OUTPUT, prompt("click Submit")));
    expect(msg.content[0]!.type).toBe("text");
    const chat = await openai().chat.completions.create({ ...chatBody(ACT_OUTPUT, prompt("click Submit")), stream: true });
    let text = "";
    for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe('{"ref": "e1"');
  });

  it("latency delays every answer", async () => {
    fake.latencyMs = 60;
    const t0 = Date.now();
    await openai().chat.completions.create(chatBody(ACT_OUTPUT, prompt("click Submit")));
    fake.latencyMs = 0;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
  });
});

describe("other shapes", () => {
  it("answers forced function tools with tool calls (Chat and Responses, JSON and stream)", async () => {
    const tool = { type: "function" as const, function: { name: "act", parameters: ACT_OUTPUT.schema, strict: true } };
    const base = { model: "gpt-test", messages: [{ role: "user" as const, content: prompt("click Submit") }], tools: [tool], tool_choice: { type: "function" as const, function: { name: "act" } } };
    const rsp = await openai().chat.completions.create(base);
    const call = rsp.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && JSON.parse(call.function.arguments).ref).toBe("e10");
    const final = await openai().chat.completions.stream(base).finalChatCompletion();
    const streamed = final.choices[0]!.message.tool_calls![0]!;
    expect(streamed.type === "function" && JSON.parse(streamed.function.arguments).ref).toBe("e10");
    const r = await openai().responses.stream({ model: "gpt-test", input: prompt("click Pay"), tools: [{ type: "function", name: "act", parameters: ACT_OUTPUT.schema, strict: true }], tool_choice: { type: "function", name: "act" } }).finalResponse();
    const item = r.output[0]!;
    expect(item.type === "function_call" && JSON.parse(item.arguments).ref).toBe("e9");
    expect(fake.requests.map((q) => q.jsonVia)).toEqual(["tool", "tool", "tool"]);
  });

  it("serves Anthropic on Vertex (rawPredict) and drops connections on demand", async () => {
    const res = await fetch(`${fake.origin}/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x:rawPredict`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ anthropic_version: "vertex-2023-10-16", ...anthropicBody(ACT_OUTPUT, prompt("click Submit")), model: undefined }),
    });
    const msg = (await res.json()) as Anthropic.Message;
    expect(msg.content[0]!.type === "tool_use" && (msg.content[0].input as { ref: string }).ref).toBe("e10");
    expect(fake.requests[0]!.model).toBe("claude-x");
    fake.reset();
    fake.script({ kind: "disconnect" }, { kind: "delay", ms: 20, then: { ref: "e1", method: "click", arguments: [], description: "late", twoStep: false } });
    const rsp = await openai().chat.completions.create(chatBody(ACT_OUTPUT, prompt("click Submit")));
    expect(JSON.parse(rsp.choices[0]!.message.content!).description).toBe("late");
    expect(fake.requests.map((q) => q.response?.status)).toEqual([0, 200]);
  });
});

describe("request records", () => {
  it("records the parsed prompt, operation, schema and headers", async () => {
    const user = prompt("type %email% into the email field", { variables: [{ name: "email", description: "the login" }] });
    await openai().responses.create(responsesBody(ACT_OUTPUT, user), { headers: { "x-custom": "yes" } });
    const [rec] = fake.requests;
    expect(rec).toMatchObject({
      index: 0,
      format: "responses",
      path: "/v1/responses",
      model: "gpt-test",
      stream: false,
      operation: "act",
      jsonVia: "text",
      instruction: "type %email% into the email field",
      variables: ["email"],
      url: URL_,
      snapshot: SNAPSHOT,
      userText: user,
    });
    expect(rec!.schema).toEqual(ACT_OUTPUT.schema);
    expect(rec!.systemText).toBe(actSystemPrompt());
    expect(rec!.headers.authorization).toBe("Bearer sk-test");
    expect(rec!.headers["x-custom"]).toBe("yes");
    expect(rec!.response?.status).toBe(200);
    expect(JSON.parse(rec!.response!.text!).arguments).toEqual(["%email%"]);
    expect(fake.requestsFor("act")).toHaveLength(1);
  });

  it("records the format and operation of each wire format", async () => {
    await openai().chat.completions.create(chatBody(OBSERVE_OUTPUT, prompt("links")));
    await anthropic().messages.create(anthropicBody(EXTRACT_TEXT_OUTPUT, prompt("price")));
    expect(fake.requests.map((r) => [r.format, r.operation, r.jsonVia, r.instruction])).toEqual([
      ["chat", "observe", "text", "links"],
      ["anthropic", "extract", "tool", "price"],
    ]);
    expect(fake.requests[1]!.path).toBe("/v1/messages");
  });

  it("guesses the operation when the request names no schema (json_object)", async () => {
    const rsp = await openai().chat.completions.create({
      model: "local-model",
      messages: [
        { role: "system", content: observeSystemPrompt() },
        { role: "user", content: prompt("the email field") },
      ],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(rsp.choices[0]!.message.content!).elements[0].ref).toBe("e1");
    expect(fake.requests[0]!.operation).toBe("observe");
  });
});
