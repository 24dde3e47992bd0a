/**
 * The one masking mechanism (src/util/secrets.ts, issue 11): whole tokens only, every URL spelling,
 * structure (selectors, images) untouched, idempotent; and the masking model client (src/model/masking.ts).
 */
import { describe, expect, it } from "vitest";
import { maskingClient } from "../../src/model/masking.js";
import type { GenerateRequest, LLMClient } from "../../src/model/types.js";
import { Secrets } from "../../src/util/secrets.js";

const secrets = (vars: Record<string, string | number | { value: string }>) => {
  const s = new Secrets();
  s.remember(vars);
  return s;
};

describe("whole tokens", () => {
  it("a value inside a longer number or word stays (the issue's cases)", () => {
    const s = secrets({ qty: 2, x: 1 });
    expect(s.text("Order GS-19286 is placed.")).toBe("Order GS-19286 is placed.");
    expect(s.text("http://127.0.0.1:4285/ok?n=1")).toBe("http://127.0.0.1:4285/ok?n=%x%");
    expect(s.text("replayed 1 cached action(s)")).toBe("replayed %x% cached action(s)");
    expect(s.text("[e12] textbox Qty: 2")).toBe("[e12] textbox Qty: %qty%");
    expect(s.text("2.5 and 1,000 and v2 and 2x")).toBe("2.5 and 1,000 and v2 and 2x");
  });

  it("letters and digits of any script are token characters; punctuation at a value's edge still matches", () => {
    const s = secrets({ nick: "SECRET-NICK-42", p: "-pw-", name: "Zoë" });
    expect(s.text("SECRET-NICK-42, SECRET-NICK-420, xSECRET-NICK-42, ÉSECRET-NICK-42")).toBe("%nick%, SECRET-NICK-420, xSECRET-NICK-42, ÉSECRET-NICK-42");
    expect(s.text("a-pw-b")).toBe("a%p%b");
    expect(s.text("Zoë Zoëy")).toBe("%name% Zoëy");
  });

  it("plain, percent-encoded, form-encoded and encodeURI spellings; longer values first; idempotent", () => {
    const s = secrets({ name: { value: "Ada Lovelace" }, email: "ada+1@example.com", first: "Ada" });
    expect(s.text("Ada Lovelace / Ada%20Lovelace / Ada+Lovelace / ada%2B1%40example.com / Ada")).toBe("%name% / %name% / %name% / %email% / %first%");
    expect(s.text(s.text("/ok?name=Ada+Lovelace&e=ada%2B1%40example.com"))).toBe("/ok?name=%name%&e=%email%");
  });

  it("deep: strings of any JSON-like value; selectors, xpaths and images untouched; keys kept", () => {
    const s = secrets({ x: 1, pw: "s3cr3t" });
    const img = { mediaType: "image/png", data: "1" };
    const value = { actions: [{ selector: "xpath=/html/body/form/p[1]/input", arguments: ["1", "xpath=/html/body/p[1]"], description: "field 1" }], fields: [{ ref: "/html/p[1]", value: "1" }], image: "1", images: [img], shot: img, url: "data:image/png;base64,1", "1": "s3cr3t" };
    expect(s.deep(value)).toEqual({ actions: [{ selector: "xpath=/html/body/form/p[1]/input", arguments: ["%x%", "xpath=/html/body/p[1]"], description: "field %x%" }], fields: [{ ref: "/html/p[1]", value: "%x%" }], image: "1", images: [img], shot: img, url: "data:image/png;base64,1", "1": "%pw%" });
    expect(value.actions[0]!.arguments[0]).toBe("1");
  });

  it("no secrets: values pass through; blank values are not secrets", () => {
    const s = secrets({ blank: "  ", empty: "" });
    expect(s.size).toBe(0);
    const v = { a: "  " };
    expect(s.deep(v)).toBe(v);
  });
});

describe("masking client", () => {
  it("masks system and messages, sends images as they are; later secrets count too", async () => {
    let seen: GenerateRequest | undefined;
    const inner: LLMClient = { modelName: "x/y", generate: async (r) => ((seen = r), { text: "{}", usage: { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 }, model: "y" }) };
    const s = new Secrets();
    const client = maskingClient(inner, s);
    s.remember({ name: "Ada Lovelace", email: "ada+1@example.com" });
    const image = { mediaType: "image/png" as const, data: "Ada" };
    await client.generate({ system: "for Ada Lovelace", messages: [{ role: "user", content: "Page: http://x/?e=ada%2B1%40example.com", images: [image] }], output: { name: "o", schema: {}, strict: false } });
    expect(seen!.system).toBe("for %name%");
    expect(seen!.messages[0]!.content).toBe("Page: http://x/?e=%email%");
    expect(seen!.messages[0]!.images).toEqual([image]);
  });
});
