/**
 * One fake model server for a test file: started in beforeAll, closed in afterAll, its recorded requests and
 * queued replies forgotten before every test. The returned object stands for the server (use it after
 * beforeAll has run, i.e. inside tests and hooks).
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startFakeModel, type FakeModel, type FakeModelOptions } from "./fake-model.js";

export function useFakeModel(options: FakeModelOptions = {}): FakeModel {
  let fake: FakeModel | undefined;
  beforeAll(async () => {
    fake = await startFakeModel(options);
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake?.reset());
  const started = () => {
    if (!fake) throw new Error("the fake model server is used before beforeAll started it");
    return fake as unknown as Record<PropertyKey, unknown>;
  };
  return new Proxy({} as FakeModel, {
    get(_, key) {
      const value = started()[key];
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(fake) : value;
    },
    set(_, key, value) {
      started()[key] = value;
      return true;
    },
  });
}
