import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { resolveServerOptions } from "../../src/server/config.js";
import { ContextTooLargeError, Contexts, MAX_CONTEXT_BYTES, openContexts } from "../../src/server/features/contexts.js";
import { FileContextBlobs } from "../../src/server/features/contexts-store.js";
import { errorResponse } from "../../src/server/http/errors.js";

/** The answer a client would get for what `p` rejects with (undefined when it resolves): the HTTP layer chooses statuses. */
const answerOf = (p: Promise<unknown>) => p.then(() => undefined, errorResponse);

const dir = mkdtempSync(join(tmpdir(), "svc-contexts-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = randomBytes(32);
const contexts = new Contexts(new FileContextBlobs(dir), key);
const cookie = { name: "sid", value: "secret-cookie-value", domain: "example.test", path: "/", expires: -1, size: 22, httpOnly: true, secure: false, session: true, priority: "Medium", sameParty: false, sourceScheme: "NonSecure", sourcePort: 80 } as const;

it("saves and loads contents, sealed (no cookie value in clear)", async () => {
  const meta = await contexts.create("ownerA", { name: "shop" });
  await contexts.save("ownerA", meta.id, { cookies: [cookie], files: { "Default/Local Storage/leveldb/000003.log": Buffer.from("theme=dark") } });
  const { contents } = await contexts.load("ownerA", meta.id);
  expect(contents.cookies).toEqual([cookie]);
  expect(Buffer.from(contents.files["Default/Local Storage/leveldb/000003.log"]!).toString()).toBe("theme=dark");
  expect(readFileSync(join(dir, "ownerA", meta.id)).includes(Buffer.from("secret-cookie-value"))).toBe(false);
});

it("contents over the bound are refused and the saved ones stay", async () => {
  const meta = await contexts.create("ownerA", {});
  await contexts.save("ownerA", meta.id, { cookies: [cookie], files: {} });
  const big = { cookies: [], files: { "Default/IndexedDB/x/000001.log": new Uint8Array(MAX_CONTEXT_BYTES + 1) } };
  await expect(contexts.save("ownerA", meta.id, big)).rejects.toBeInstanceOf(ContextTooLargeError);
  expect((await contexts.load("ownerA", meta.id)).contents.cookies).toEqual([cookie]);
});

it("a blob copied to another key or id, or opened with another data key, does not open", async () => {
  const meta = await contexts.create("ownerA", {});
  const moved = await contexts.create("ownerB", {});
  mkdirSync(join(dir, "ownerB"), { recursive: true });
  copyFileSync(join(dir, "ownerA", meta.id), join(dir, "ownerB", moved.id));
  await expect(answerOf(contexts.get("ownerB", moved.id))).resolves.toMatchObject({ status: 500, code: "CONTEXT_UNREADABLE" });
  await expect(answerOf(new Contexts(new FileContextBlobs(dir), randomBytes(32)).get("ownerA", meta.id))).resolves.toMatchObject({ status: 500, code: "CONTEXT_UNREADABLE" });
  await expect(answerOf(contexts.get("ownerB", meta.id))).resolves.toMatchObject({ status: 404 });
});

it("a save after the context was deleted does not bring it back", async () => {
  const meta = await contexts.create("ownerA", {});
  await contexts.delete("ownerA", meta.id);
  await expect(answerOf(contexts.save("ownerA", meta.id, { cookies: [cookie], files: {} }))).resolves.toMatchObject({ status: 404 });
  await expect(answerOf(contexts.get("ownerA", meta.id))).resolves.toMatchObject({ status: 404 });
});

it("the library's startServer without a dataDir writes no key until a context needs one", async () => {
  const base = mkdtempSync(join(dir, "lazy-"));
  const lazy = await openContexts(resolveServerOptions({ apiKeys: ["key-0000-0001"], cacheDir: join(base, "cache") }), () => {});
  expect(existsSync(join(base, "server-data"))).toBe(false);
  await expect(answerOf(lazy.get("ownerA", "00000000-0000-4000-8000-000000000000"))).resolves.toMatchObject({ status: 404 });
  expect(existsSync(join(base, "server-data"))).toBe(false);
  const meta = await lazy.create("ownerA", {});
  expect(existsSync(join(base, "server-data", "data.key"))).toBe(true);
  expect(existsSync(join(base, "server-data", "contexts", "ownerA", meta.id))).toBe(true);
});
