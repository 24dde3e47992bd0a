/**
 * Shared helpers for the model e2e tests (test/e2e/model-*.test.ts): the three wire formats the real SDK
 * clients speak to the fake model server, a fake model + fixture server per file, Services whose options
 * depend on them (built lazily, closed after), and the probes the leak / cache / metrics tests need.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import type { Page } from "../../src/browser/page.js";
import type { LogLine, ServiceOptions } from "../../src/options.js";
import type { Service } from "../../src/service.js";
import { makeService, textIn, waitForValue } from "./browser.js";
import { leaseBrowser, type BrowserLease } from "./shared-chrome.js";
import { parseSnapshot, startFakeModel, type FakeModel, type FakeRequest, type WireFormat } from "./fake-model.js";
import { startFixtureServer, type FixtureServer } from "./server.js";

export interface Wire {
  /** The fake server's name for the format (`FakeRequest.format`). */
  format: WireFormat;
  label: string;
  /** The model config object that makes the library speak this format to `fake`. */
  model(fake: FakeModel): { modelName: string; apiKey: string; baseURL: string; openaiEndpointFormat?: "responses" | "chat" };
}

export const WIRES: readonly Wire[] = [
  { format: "responses", label: "OpenAI Responses", model: (fake) => ({ modelName: "openai/gpt-test", apiKey: "sk-test-key", baseURL: fake.baseURL() }) },
  { format: "chat", label: "Chat Completions", model: (fake) => ({ modelName: "openai/gpt-test", apiKey: "sk-test-key", baseURL: fake.baseURL(), openaiEndpointFormat: "chat" }) },
  { format: "anthropic", label: "Anthropic Messages", model: (fake) => ({ modelName: "anthropic/claude-test", apiKey: "sk-ant-test-key", baseURL: fake.baseURL("anthropic") }) },
];

export interface ModelWorld {
  readonly fake: FakeModel;
  readonly server: FixtureServer;
}

/**
 * One fake model server and one fixture server for the file (started in beforeAll, closed in afterAll);
 * recorded requests and queued replies are forgotten before every test.
 */
export function useModelWorld(): ModelWorld {
  let fake: FakeModel | undefined;
  let server: FixtureServer | undefined;
  beforeAll(async () => {
    [fake, server] = await Promise.all([startFakeModel(), startFixtureServer()]);
  });
  afterAll(async () => {
    await Promise.all([fake?.close(), server?.close()]);
  });
  beforeEach(() => fake?.reset());
  return {
    get fake(): FakeModel {
      if (!fake) throw new Error("useModelWorld: not started (used outside a test?)");
      return fake;
    },
    get server(): FixtureServer {
      if (!server) throw new Error("useModelWorld: not started (used outside a test?)");
      return server;
    },
  };
}

/**
 * A Service for the enclosing describe block (or file) whose options are computed when it starts (they
 * usually need the fake's baseURL). Initialized in beforeAll, force-closed in afterAll.
 */
export function useModelService(options: () => ServiceOptions, construction: { cwd?: () => string } = {}): { readonly svc: Service } {
  let svc: Service | undefined;
  let lease: BrowserLease | undefined;
  beforeAll(async () => {
    lease = await leaseBrowser(options());
    // `cwd`: the working directory while the Service is constructed (logInferenceToFile writes there).
    const dir = construction.cwd?.();
    const previous = process.cwd();
    if (dir) process.chdir(dir);
    try {
      svc = makeService(lease.options);
    } finally {
      if (dir) process.chdir(previous);
    }
    await svc.init();
  });
  afterAll(async () => {
    if (svc && lease) await lease.close(svc);
  });
  return {
    get svc(): Service {
      if (!svc) throw new Error("useModelService: the Service is not ready (used outside a test?)");
      return svc;
    },
  };
}

/**
 * Runs `fn` with a fresh initialized Service and always closes it, so no Chrome it launched outlives the
 * test (on the worker's shared Chrome: a fresh state, disconnected after; see shared-chrome.ts).
 */
export async function withService<T>(options: ServiceOptions, fn: (svc: Service) => Promise<T>): Promise<T> {
  const lease = await leaseBrowser(options);
  const svc = makeService(lease.options);
  try {
    await svc.init();
    return await fn(svc);
  } finally {
    await lease.close(svc);
  }
}

/** A `logger` that keeps every line. */
export function logSink(): { lines: LogLine[]; logger: (line: LogLine) => void; text(): string } {
  const lines: LogLine[] = [];
  return { lines, logger: (line) => void lines.push(line), text: () => lines.map((l) => JSON.stringify(l)).join("\n") };
}

/** Everything the library sent to the model server: paths, queries, headers and bodies, as one string. */
export function everythingSent(fake: FakeModel): string {
  return fake.requests.map((r) => JSON.stringify({ path: r.path, query: r.query, headers: r.headers, body: r.body })).join("\n");
}

/** Temp directories made by the file's tests, removed in afterAll. */
export function useTempDirs(): (prefix?: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return (prefix = "svc-model-e2e-") => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** Every file under `dir` (recursively) as `{ path, text }`. */
export function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return out;
  }
  for (const rel of entries) {
    const path = join(dir, rel);
    try {
      out.push({ path, text: readFileSync(path, "utf8") });
    } catch {
      // a directory
    }
  }
  return out;
}

/** Sets (or, with undefined, deletes) environment variables; returns a function that restores them. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** Polls an element's text (in any frame: `frames` are iframe selectors from the top) until it equals `expected`. */
export async function expectText(page: Page, selector: string, expected: string, frames: string[] = []): Promise<void> {
  expect(await waitForValue(() => textIn(page, selector, frames), expected)).toBe(expected);
}

/** Runs a JavaScript expression in the page's main frame (strings only: no transpiled helpers reach the page). */
export function inPage<R = unknown>(page: Page, expression: string): Promise<R> {
  return page.evaluate<R>(expression);
}

/** The ref of the snapshot element with this role and name in a recorded request (throws when absent). */
export function refOf(req: FakeRequest, role: string, name: string): string {
  const line = parseSnapshot(req.snapshot).find((l) => l.ref && l.role === role && l.name === name);
  if (!line?.ref) throw new Error(`refOf: no "${role} ${name}" in the snapshot:\n${req.snapshot}`);
  return line.ref;
}

/** Refs and names of every element with this role in a recorded request's snapshot, in page order. */
export function elementsOf(req: FakeRequest, role: string): Array<{ ref: string; name: string }> {
  return parseSnapshot(req.snapshot)
    .filter((l) => l.ref && l.role === role)
    .map((l) => ({ ref: l.ref!, name: l.name ?? "" }));
}

/** Sum of the usage the fake reported for the given requests (those answered with a 200). */
export function usageOf(requests: FakeRequest[]): { input: number; output: number; reasoning: number; cached: number } {
  const sum = { input: 0, output: 0, reasoning: 0, cached: 0 };
  for (const r of requests) {
    const u = r.response?.usage;
    if (!u) continue;
    sum.input += u.input;
    sum.output += u.output;
    sum.reasoning += u.reasoning;
    sum.cached += u.cached;
  }
  return sum;
}
