/**
 * One fake model server for a test file (see use-resource.ts); its recorded requests and queued replies are
 * forgotten before every test.
 */
import { beforeEach } from "vitest";
import { startFakeModel, type FakeModel, type FakeModelOptions } from "./fake-model.js";
import { useResource } from "./use-resource.js";

export function useFakeModel(options: FakeModelOptions = {}): FakeModel {
  const fake = useResource("the fake model server", () => startFakeModel(options));
  beforeEach(() => fake.reset());
  return fake;
}

