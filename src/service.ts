/**
 * The library's front door: options in, one backend chosen at init() — local (this process drives the
 * browser over CDP) or remote (a session API runs the operations) — and every public method validated
 * here, then handed to that backend. No method branches on where it runs.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import type { Agent } from "./agent/agent.js";
import { AgentCache } from "./agent/cache.js";
import type { AgentConfig } from "./agent/options.js";
import type { InitResult, ServiceBackend } from "./backend.js";
import type { BrowserContext } from "./browser/context.js";
import { foreignTargetId } from "./browser/foreign-page.js";
import { Page, type PageOperations } from "./browser/page.js";
import { ActCache } from "./cache/act-cache.js";
import { cloudUrls, openCloudBackend } from "./cloud.js";
import { ServiceInvalidArgumentError, ServiceNotInitializedError } from "./errors.js";
import { InferenceLog } from "./inference-log.js";
import { openLocalBackend } from "./local/open.js";
import { createLogger, type Logger } from "./log.js";
import { LegacyModel, ModelRegistry } from "./model-choice.js";
import type { ActResult, Action } from "./operations/action.js";
import { parseVariables } from "./operations/variables.js";
import { NO_EFFECT_OPTIONS, resolveOptions, type ResolvedOptions, type ServiceOptions } from "./options.js";
import type { SearchBackend } from "./platform/search.js";
import { searchBackendFor } from "./platform/web.js";
import type { HistoryEntry, Metrics } from "./records.js";
import { Secrets } from "./util/secrets.js";
import type { Abortable } from "./util/abort.js";

export type { InitResult } from "./backend.js";

export interface ActOptions extends Abortable {
  model?: unknown;
  variables?: Record<string, unknown>;
  timeout?: number;
  /** svc's page, or a Playwright / Puppeteer page of the same browser (default: the active page). */
  page?: Page | object;
  serverCache?: boolean;
}

export interface ObserveOptions extends Abortable {
  model?: unknown;
  variables?: Record<string, unknown>;
  timeout?: number;
  selector?: string;
  page?: Page | object;
}

export interface ExtractOptions extends Abortable {
  model?: unknown;
  /** `%name%` in the instruction; the model sees names only (as in act and observe). */
  variables?: Record<string, unknown>;
  timeout?: number;
  selector?: string;
  page?: Page | object;
  serverCache?: boolean;
}

export interface SnapshotOptions extends Abortable {
  /** Only the lines with a ref (plus headings and the iframes holding refs). */
  interactiveOnly?: boolean;
  /**
   * Token budget: long text is shortened, then text lines dropped from the end; when the ref lines alone exceed
   * it, the outline's tail is cut too and its last line says how many lines and refs were left out and from which
   * ref the rest starts (`from`).
   */
  maxTokens?: number;
  /** Only this element's subtree. */
  selector?: string;
  /**
   * Only what changed since this tab's last snapshot: `+ ` added, `~ ` changed (a ref line as it reads now),
   * `- ` removed, under a `[delta since the last snapshot: …]` line; after a navigation (or with other options
   * than the last one) the whole outline, first line `[full snapshot: page changed]` (or why).
   */
  delta?: boolean;
  /** The outline from this ref's line on (`e12`), e.g. the rest of one a budget cut. Not with `delta`. */
  from?: string;
  timeout?: number;
  page?: Page | object;
}

/** The older generation's extract(options) form (docs/wire-formats.md "Library operations"). */
export interface LegacyExtractOptions<T = unknown> {
  instruction?: string;
  schema?: z.ZodType<T>;
  selector?: string;
  iframes?: boolean;
  modelName?: string;
  modelClientOptions?: Record<string, unknown>;
  domSettleTimeoutMs?: number;
  page?: Page | object;
}

// The older generation's page methods (docs/wire-formats.md "Library operations"), typed like the Service's own (page.ts cannot name these types).
declare module "./browser/page.js" {
  interface Page {
    act(action: Action, options?: Omit<ActOptions, "page">): Promise<ActResult>;
    act(instruction: string, options?: Omit<ActOptions, "page">): Promise<ActResult>;
    observe(instruction?: string, options?: Omit<ObserveOptions, "page">): Promise<Action[]>;
    extract(): Promise<{ pageText: string }>;
    extract(instruction: string, options?: Omit<ExtractOptions, "page">): Promise<{ extraction: string }>;
    extract<T>(instruction: string, schema: z.ZodType<T>, options?: Omit<ExtractOptions, "page">): Promise<T>;
    extract<T>(options: Omit<LegacyExtractOptions<T>, "page">): Promise<T | { extraction: string } | { pageText: string }>;
  }
}

function isZod(v: unknown): v is z.ZodType {
  return !!v && typeof v === "object" && typeof (v as z.ZodType).safeParse === "function";
}

export class Service {
  private readonly opts: ResolvedOptions;
  private readonly log: Logger;
  private readonly models: ModelRegistry;
  private readonly cache: ActCache | undefined;
  private readonly agentCache: AgentCache | undefined;
  private readonly inferenceLog: InferenceLog | undefined;
  /** Every variable value this service was given (and what was typed into password fields): masked in every later request and record. */
  private readonly secretsOfSession = new Secrets();
  private backend: ServiceBackend | undefined;
  private initializing: Promise<InitResult> | undefined;
  private closed = false;

  constructor(options: ServiceOptions = {}) {
    this.opts = resolveOptions(options);
    this.log = createLogger({ verbose: this.opts.verbose, secrets: this.secretsOfSession, ...(this.opts.logger ? { sink: this.opts.logger } : {}) });
    const raw = this.opts.raw;
    this.models = new ModelRegistry({ model: raw.model, ...(raw.modelName ? { modelName: raw.modelName } : {}), modelClientOptions: raw.modelClientOptions }, ModelRegistry.validateCustom(raw.llmClient), raw.modelEndpointPolicy, this.secretsOfSession, (m) => this.log.warn("model", m));
    const cacheDir = this.opts.cacheDir ?? (raw.enableCaching ? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "svc", "actions") : undefined);
    this.cache = cacheDir ? new ActCache(cacheDir) : undefined;
    this.agentCache = cacheDir ? new AgentCache(cacheDir) : undefined;
    this.inferenceLog = raw.logInferenceToFile ? new InferenceLog(process.cwd(), this.secretsOfSession) : undefined;
    for (const key of NO_EFFECT_OPTIONS) {
      if (raw[key] !== undefined) this.log.info("init", `option ${key} is accepted for compatibility and has no effect in svc`);
    }
  }

  async init(): Promise<InitResult> {
    if (this.backend) return this.backend.init;
    if (this.closed) throw new ServiceNotInitializedError("this service was closed", { hint: "create a new Service" });
    this.initializing ??= this.open().finally(() => (this.initializing = undefined));
    return this.initializing;
  }

  private async open(): Promise<InitResult> {
    const setup = { opts: this.opts, log: this.log, models: this.models, cache: this.cache, agentCache: this.agentCache, inferenceLog: this.inferenceLog, secrets: this.secretsOfSession, search: () => agentSearch(this.opts) };
    this.backend = this.opts.env === "LOCAL" ? await openLocalBackend(setup) : await openCloudBackend(setup);
    this.backend.context.provideOperations(this.pageOperations());
    return this.backend.init;
  }

  private get b(): ServiceBackend {
    if (!this.backend || this.closed) throw new ServiceNotInitializedError("call init() before using the service", { hint: "await service.init()" });
    return this.backend;
  }

  get context(): BrowserContext {
    return this.b.context;
  }

  /** The active page. */
  get page(): Page {
    const page = this.b.context.activePage();
    if (!page) throw new ServiceNotInitializedError("the browser has no open page", { hint: "open one with context.newPage()" });
    return page;
  }

  /**
   * The session's secrets (util/secrets.ts): every variable value this service was given and every value
   * typed into a password field. `secrets.deep(value)` masks a copy of anything the caller writes down;
   * `secrets.add(name, value)` adds a value of the caller's own.
   */
  get secrets(): Secrets {
    return this.secretsOfSession;
  }

  get metrics(): Promise<Metrics> {
    return this.b.metrics();
  }

  get history(): Promise<ReadonlyArray<HistoryEntry>> {
    return Promise.resolve(Object.freeze([...this.b.history()]));
  }

  /** The cloud session's id, API URL and debugger URL; undefined for local runs (docs/wire-formats.md "Library operations"). */
  get browserbaseSessionID(): string | undefined {
    return this.backend?.cloud?.id;
  }
  get browserbaseSessionURL(): string | undefined {
    return this.backend?.cloud?.url;
  }
  get browserbaseDebugURL(): string | undefined {
    return this.backend?.cloud?.debugUrl;
  }

  async act(action: Action, options?: ActOptions): Promise<ActResult>;
  async act(instruction: string, options?: ActOptions): Promise<ActResult>;
  async act(input: Action | string, options: ActOptions = {}): Promise<ActResult> {
    const b = this.b;
    const page = await this.pageFor(options.page);
    checkTimeout(options.timeout);
    checkSignal(options.signal);
    if (typeof input === "string") {
      if (!input.trim()) throw new ServiceInvalidArgumentError("act: the instruction is empty");
    } else if (input === null || typeof input !== "object") throw new ServiceInvalidArgumentError("act: expected an instruction string or an Action object");
    const variables = typeof input === "string" ? parseVariables(options.variables, "options.variables") : {};
    this.secretsOfSession.remember(variables);
    return b.act({ input, page, variables, model: options.model, timeout: options.timeout, signal: options.signal, serverCache: options.serverCache ?? this.opts.raw.serverCache });
  }

  async observe(instruction?: string, options: ObserveOptions = {}): Promise<Action[]> {
    const b = this.b;
    const page = await this.pageFor(options.page);
    checkTimeout(options.timeout);
    checkSignal(options.signal);
    const variables = parseVariables(options.variables, "options.variables");
    this.secretsOfSession.remember(variables);
    return b.observe({ instruction, page, variables, model: options.model, timeout: options.timeout, signal: options.signal, selector: options.selector });
  }

  async extract(): Promise<{ pageText: string }>;
  async extract(instruction: string, options?: ExtractOptions): Promise<{ extraction: string }>;
  async extract<T>(instruction: string, schema: z.ZodType<T>, options?: ExtractOptions): Promise<T>;
  async extract<T>(options: LegacyExtractOptions<T>): Promise<T | { extraction: string } | { pageText: string }>;
  async extract(a?: unknown, b?: unknown, c?: unknown): Promise<unknown> {
    const backend = this.b;
    let instruction: string | undefined;
    let schema: z.ZodType | undefined;
    let options: ExtractOptions = {};
    let model: unknown;
    if (typeof a === "string") {
      instruction = a;
      if (isZod(b)) {
        schema = b;
        options = (c ?? {}) as ExtractOptions;
      } else options = (b ?? {}) as ExtractOptions;
      model = options.model;
    } else if (a && typeof a === "object") {
      const legacy = a as LegacyExtractOptions;
      instruction = legacy.instruction;
      if (legacy.schema !== undefined && !isZod(legacy.schema)) throw new ServiceInvalidArgumentError("schema: expected a zod schema");
      schema = legacy.schema;
      options = { ...(legacy.selector ? { selector: legacy.selector } : {}), ...(legacy.page ? { page: legacy.page } : {}) };
      model = legacy.modelName ? new LegacyModel(legacy.modelName, legacy.modelClientOptions) : undefined;
    } else if (a !== undefined) throw new ServiceInvalidArgumentError("extract: expected an instruction, a schema or options");
    checkTimeout(options.timeout);
    checkSignal(options.signal);
    const page = await this.pageFor(options.page);
    const variables = parseVariables(options.variables, "options.variables");
    this.secretsOfSession.remember(variables);
    return backend.extract({ instruction, schema, page, variables, model, timeout: options.timeout, signal: options.signal, selector: options.selector, serverCache: options.serverCache ?? this.opts.raw.serverCache });
  }

  /**
   * The page's outline with refs (what extract() with no instruction returns), optionally only the lines
   * with refs (plus headings), within a token budget, only what changed since the tab's last snapshot, or
   * from one ref on. Refs it shows work in act() like any other.
   */
  async snapshot(options: SnapshotOptions = {}): Promise<{ text: string }> {
    const backend = this.b;
    if (options === null || typeof options !== "object") throw new ServiceInvalidArgumentError("snapshot: expected options");
    if (options.maxTokens !== undefined && (!Number.isInteger(options.maxTokens) || options.maxTokens <= 0)) throw new ServiceInvalidArgumentError("options.maxTokens: expected a positive integer");
    if (options.selector !== undefined && (typeof options.selector !== "string" || !options.selector.trim())) throw new ServiceInvalidArgumentError("options.selector: expected a non-empty string");
    if (options.delta !== undefined && typeof options.delta !== "boolean") throw new ServiceInvalidArgumentError("options.delta: expected a boolean");
    if (options.from !== undefined && typeof options.from !== "string") throw new ServiceInvalidArgumentError("options.from: expected a ref such as e12");
    checkTimeout(options.timeout);
    checkSignal(options.signal);
    const page = await this.pageFor(options.page);
    const out = (await backend.extract({
      page,
      timeout: options.timeout,
      signal: options.signal,
      ...(options.selector ? { selector: options.selector } : {}),
      ...(options.interactiveOnly ? { interactiveOnly: true } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.delta ? { delta: true } : {}),
      ...(options.from !== undefined ? { from: options.from } : {}),
    })) as { pageText: string };
    return { text: out.pageText };
  }

  /**
   * The page an operation runs on: the active one, one of svc's pages, or svc's page for the same tab as a
   * Playwright / Puppeteer page (found by its CDP target id).
   */
  private async pageFor(page: unknown): Promise<Page> {
    if (page === undefined) return this.page;
    if (page instanceof Page) return page;
    const { targetId, library } = await foreignTargetId(page, "options.page");
    const context = this.b.context;
    // A tab the other library just opened is attached to svc's connection a moment later.
    for (let i = 0; i < 40; i++) {
      await context.idle();
      const found = context.pages().find((p) => p.targetId === targetId);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new ServiceInvalidArgumentError(`options.page: that ${library} page is not a tab of this Service's browser`, {
      hint: "connect both to the same browser (Playwright's connectOverCDP / Puppeteer's connect to svc's, or svc's cdpUrl to theirs), or pass service.page",
    });
  }

  /** What page.act/extract/observe (the older generation's page methods) run: this Service, on that page. */
  private pageOperations(): PageOperations {
    const withPage = (options: unknown, page: Page) => ({ ...(options && typeof options === "object" ? options : {}), page });
    return {
      act: (page, input, options) => this.act(input as string, withPage(options, page)),
      observe: (page, instruction, options) => this.observe(instruction as string | undefined, withPage(options, page)),
      extract: (page, args) => {
        const [a, b, c] = args;
        if (typeof a !== "string") return this.extract(withPage(a, page) as LegacyExtractOptions);
        return isZod(b) ? this.extract(a, b, withPage(c, page)) : this.extract(a, withPage(b, page));
      },
    };
  }

  /** An agent for multi-step tasks (see src/agent/agent.ts); its usage goes to the `agent` metrics bucket. */
  agent(config?: AgentConfig): Agent {
    return this.b.agent(config);
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    if (this.initializing) await this.initializing.catch(() => {});
    if (!this.backend || this.closed) return;
    this.closed = true;
    await this.backend.close({ force: options.force ?? false });
  }
}

/** The agent's search backend: searchUrl / SVC_SEARCH_URL (SearXNG), else the platform in env BROWSERBASE with a key, else none. */
function agentSearch(opts: ResolvedOptions, env: NodeJS.ProcessEnv = process.env): SearchBackend | undefined {
  const raw = opts.raw;
  const key = raw.apiKey ?? (env.BROWSERBASE_API_KEY?.trim() || undefined);
  return searchBackendFor({
    searchUrl: raw.searchUrl ?? (env.SVC_SEARCH_URL?.trim() || undefined),
    platform: opts.env === "BROWSERBASE" && key ? { apiKey: key, baseUrl: cloudUrls(raw, env).platform } : undefined,
  });
}

function checkTimeout(timeout: number | undefined): void {
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) throw new ServiceInvalidArgumentError("options.timeout: expected a positive number of milliseconds");
}

function checkSignal(signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ServiceInvalidArgumentError("options.signal: expected an AbortSignal");
}
