/**
 * ModelMessage.images (the hybrid agent's screenshots) on each wire: OpenAI Responses (`input_image`),
 * Chat Completions (`image_url`), Anthropic Messages (an `image` block), after the message's text. A
 * message without images is sent exactly as before (plain string content).
 */
import { describe, expect, it } from "vitest";
import { parseModelConfig } from "../../src/model/config.js";
import { createModelClient } from "../../src/model/factory.js";
import type { GenerateRequest } from "../../src/model/types.js";
import { useFakeModel } from "../support/use-fake-model.js";

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const request = (images: boolean): GenerateRequest => ({
  system: "You drive a browser.",
  messages: [
    { role: "user", content: "Instruction: look", ...(images ? { images: [{ mediaType: "image/png" as const, data: PNG }] } : {}) },
  ],
  output: { name: "agent_step", schema: SCHEMA, strict: false },
});

const fake = useFakeModel();

const configs = () => ({
  responses: { modelName: "openai/gpt-test", apiKey: "sk-x", baseURL: fake.baseURL() },
  chat: { modelName: "openai/gpt-test", apiKey: "sk-x", baseURL: fake.baseURL(), openaiEndpointFormat: "chat" },
  anthropic: { modelName: "anthropic/claude-test", apiKey: "sk-x", baseURL: fake.baseURL("anthropic") },
});

const expected: Record<string, unknown> = {
  responses: { input: [{ role: "user", content: [{ type: "input_text", text: "Instruction: look" }, { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" }] }] },
  chat: { messages: [{ role: "system" }, { role: "user", content: [{ type: "text", text: "Instruction: look" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] }] },
  anthropic: { messages: [{ role: "user", content: [{ type: "text", text: "Instruction: look" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] }] },
};

describe.each(["responses", "chat", "anthropic"] as const)("%s", (format) => {
  it("sends the images after the text; the prompt text is still read as before", async () => {
    const client = createModelClient(parseModelConfig(configs()[format]), { env: {} });
    fake.script({ ok: true });
    await client.generate(request(true));
    const [sent] = fake.requests;
    expect(sent!.format).toBe(format);
    expect(sent!.body).toMatchObject(expected[format] as object);
    expect(sent!.instruction).toBe("look");
  });

  it("without images the content stays a plain string", async () => {
    const client = createModelClient(parseModelConfig(configs()[format]), { env: {} });
    fake.script({ ok: true });
    await client.generate(request(false));
    const body = fake.requests[0]!.body;
    const user = [...(body.input ?? []), ...(body.messages ?? [])].find((m: { role: string }) => m.role === "user");
    expect(user.content).toBe("Instruction: look");
  });
});
