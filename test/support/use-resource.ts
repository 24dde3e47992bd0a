/**
 * A server a test file needs for all its tests: started in beforeAll, closed in afterAll. The returned
 * object stands for it (use it after beforeAll has run, i.e. inside tests and hooks); property writes go
 * through to it too.
 */
import { afterAll, beforeAll } from "vitest";
import { type FixtureServer, startFixtureServer } from "./server.js";

export function useResource<T extends { close(): Promise<unknown> }>(what: string, start: () => Promise<T>): T {
  let resource: T | undefined;
  beforeAll(async () => {
    resource = await start();
  });
  afterAll(async () => {
    await resource?.close();
  });
  const started = () => {
    if (!resource) throw new Error(`${what} is used before beforeAll started it`);
    return resource as unknown as Record<PropertyKey, unknown>;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const value = started()[key];
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(resource) : value;
    },
    set(_, key, value) {
      started()[key] = value;
      return true;
    },
  });
}

/** The fixture pages' server (both origins) for a test file. */
export function useFixtureServer(): FixtureServer {
  return useResource("the fixture server", startFixtureServer);
}
