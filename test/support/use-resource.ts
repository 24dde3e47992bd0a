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
  return standIn(what, () => resource);
}

/**
 * An object that stands for the one `current()` gives once it exists: property reads (methods bound to it)
 * and writes go through to it; using it before then throws, naming `what`.
 */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  const started = () => {
    const value = current();
    if (!value) throw new Error(`${what} is used before beforeAll started it`);
    return value as unknown as Record<PropertyKey, unknown>;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const target = started();
      const value = target[key];
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
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
