/**
 * A JSON Schema with `required` keys that `properties` does not list is checked like any other schema
 * (zod's converter alone let `{}` through `{type: "object", required: ["id"]}`): fetch's json format and
 * the helper every face uses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceFetchError } from "../../src/errors.js";
import { fetchPage } from "../../src/fetch/index.js";
import { fromJsonSchema } from "../../src/util/json-schema.js";
import { type FixtureServer, startFixtureServer } from "../support/server.js";

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
});

describe("required without properties", () => {
  it("fetch format json: a missing required key fails, a present one passes", async () => {
    const url = fixtures.url("fetch/data.json");
    const e = await fetchPage(url, { format: "json", schema: { type: "object", required: ["nope"] } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceFetchError);
    expect((e as Error).message).toMatch(/does not match the schema: nope: /);
    expect((await fetchPage(url, { format: "json", schema: { type: "object", required: ["count"] } })).content).toContain('"count": 3');
  });

  it("nested, and beside properties that name other keys", () => {
    const schema = fromJsonSchema({
      type: "object",
      properties: { items: { type: "array", items: { type: "object", required: ["name"] } }, note: { type: "string" } },
      required: ["items", "id"],
    });
    expect(schema.safeParse({ items: [{ name: 1 }], id: null }).success).toBe(true);
    expect(schema.safeParse({ items: [{ name: 1 }] }).success).toBe(false);
    expect(schema.safeParse({ items: [{}], id: 1 }).success).toBe(false);
  });
});
