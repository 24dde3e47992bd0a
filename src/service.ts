/**
 * The composition root of the library: options in, a browser connection, the operations wired to it,
 * history and metrics recorded around them. It holds no operation logic of its own.
 */
import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { createAgent, type Agent } from "./agent/agent.js";
import { AgentCache } from "./agent/cache.js";
import type { AgentConfig } from "./agent/options.js";
import { openBrowser, type BrowserHandle } from "./browser/connect.js";
import type { BrowserContext } from "./browser/context.js";
import type { Page } from "./browser/page.js";
import { ActCache } from "./cache/act-cache.js";
import { ServiceEnvironmentError, ServiceInvalidArgumentError, ServiceNotInitializedError, ServiceTimeoutError } from "./errors.js";
import { InferenceLog } from "./inference-log.js";
import { createLogger, type Logger } from "./log.js";
import type { LLMClient, ModelUsage } from "./model/index.js";
import { DEFAULT_MODEL, isLLMClient, LegacyModel, ModelRegistry } from "./models.js";
import type { ActResult, Action } from "./operations/action.js";
import { actWithCache } from "./operations/act-cached.js";
import type { OperationContext } from "./operations/context.js";
import { extractPageText, extractWithModel } from "./operations/extract.js";
import { observe as observeOp } from "./operations/observe.js";
import { performAction } from "./operations/perform.js";
import { PageSnapshots } from "./operations/snapshots.js";
import { mask, maskDeep, parseVariables, type Variables } from "./operations/variables.js";
import { resolveOptions, type ResolvedOptions, type ServiceOptions } from "./options.js";
import { addUsage, emptyMetrics, type HistoryEntry, type MetricOperation, type Metrics } from "./records.js";

export interface InitResult {
  debugUrl: string;
  sessionUrl: string;
  sessionId: string;
}

export interface ActOptions {
  model?: unknown;
  variables?: Record<string, unknown>;
  timeout?: number;
  page?: Page;
  serverCache?: boolean;
}

export interface ObserveOptions {
  model?: unknown;
  variables?: Record<string, unknown>;
  timeout?: number;
  selector?: string;
  page?: Page;
}

export interface ExtractOptions {
  model?: unknown;
  timeout?: number;
  selector?: string;
  page?: Page;
  serverCache?: boolean;
}

/** The older generation's extract(options) form (spec/seed.md §4.2). */
export interface LegacyExtractOptions<T = unknown> {
  instruction?: string;
  schema?: z.ZodType<T>;
  selector?: string;
  iframes?: boolean;
  modelName?: string;
  modelClientOptions?: Record<string, unknown>;
  domSettleTimeoutMs?: number;
  page?: Page;
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
  private browser: BrowserHandle | undefined;
  private initResult: InitResult | undefined;
  private initializing: Promise<InitResult> | undefined;
  private readonly historyEntries: HistoryEntry[] = [];
  private readonly metricsRecord: Metrics = emptyMetrics();
  private readonly snapshots = new PageSnapshots();
  /** Masks of agent runs in progress: a URL the agent opens may hold a variable's value. */
  private readonly navigationMasks = new Set<<T>(value: T) => T>();
  private closed = false;

  constructor(options: ServiceOptions = {}) {
    this.opts = resolveOptions(options);
    this.log = createLogger({ verbose: this.opts.verbose, ...(this.opts.logger ? { sink: this.opts.logger } : {}) });
    const raw = this.opts.raw;
    this.models = new ModelRegistry({ model: raw.model, ...(raw.modelName ? { modelName: raw.modelName } : {}), modelClientOptions: raw.modelClientOptions }, ModelRegistry.validateCustom(raw.llmClient));
    const cacheDir = this.opts.cacheDir ?? (raw.enableCaching ? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "svc", "actions") : undefined);
    this.cache = cacheDir ? new ActCache(cacheDir) : undefined;
    this.agentCache = cacheDir ? new AgentCache(cacheDir) : undefined;
    this.inferenceLog = raw.logInferenceToFile ? new InferenceLog(process.cwd()) : undefined;
  }

  async init(): Promise<InitResult> {
    if (this.initResult) return this.initResult;
    this.initializing ??= this.start();
    return this.initializing;
  }

  private async start(): Promise<InitResult> {
    if (this.opts.env !== "LOCAL") {
      throw new ServiceEnvironmentError(`env "${this.opts.env}" is not supported by this version of svc`, { hint: 'use env: "LOCAL", or attach to any CDP endpoint with localBrowserLaunchOptions.cdpUrl' });
    }
    this.log.info("init", "starting browser", { headless: this.opts.launch.headless ?? true, attach: Boolean(this.opts.launch.cdpUrl) });
    try {
      this.browser = await openBrowser({ ...this.opts.launch, domSettleTimeout: this.opts.domSettleTimeout });
    } finally {
      this.initializing = undefined;
    }
    this.browser.context.onPage((page) => this.watchNavigations(page));
    for (const page of this.browser.context.pages()) this.watchNavigations(page);
    const port = this.browser.launched?.port ?? new URL(this.browser.wsEndpoint).port;
    this.initResult = { sessionId: randomUUID(), sessionUrl: this.browser.wsEndpoint, debugUrl: `http://127.0.0.1:${port}/json` };
    return this.initResult;
  }

  private watchNavigations(page: Page): void {
    page.onNavigated((info) => {
      let entry = { parameters: { url: info.requestedUrl }, result: { url: info.url, status: info.status } };
      for (const mask of this.navigationMasks) entry = mask(entry);
      this.record("navigate", entry.parameters, entry.result);
    });
  }

  private get handle(): BrowserHandle {
    if (!this.browser || this.closed) throw new ServiceNotInitializedError("call init() before using the service", { hint: "await service.init()" });
    return this.browser;
  }

  get context(): BrowserContext {
    return this.handle.context;
  }

  /** The active page. */
  get page(): Page {
    const page = this.handle.context.activePage();
    if (!page) throw new ServiceNotInitializedError("the browser has no open page", { hint: "open one with context.newPage()" });
    return page;
  }

  get metrics(): Promise<Metrics> {
    return Promise.resolve({ ...this.metricsRecord });
  }

  get history(): Promise<ReadonlyArray<HistoryEntry>> {
    return Promise.resolve(Object.freeze(this.historyEntries.map((e) => ({ ...e }))));
  }

  /** Undefined for local runs (spec/seed.md §4.2). */
  get browserbaseSessionID(): string | undefined {
    return undefined;
  }
  get browserbaseSessionURL(): string | undefined {
    return undefined;
  }
  get browserbaseDebugURL(): string | undefined {
    return undefined;
  }

  async act(action: Action, options?: ActOptions): Promise<ActResult>;
  async act(instruction: string, options?: ActOptions): Promise<ActResult>;
  async act(input: Action | string, options: ActOptions = {}): Promise<ActResult> {
    void this.handle;
    const page = options.page ?? this.page;
    if (typeof input === "string") {
      if (!input.trim()) throw new ServiceInvalidArgumentError("act: the instruction is empty");
      const variables = parseVariables(options.variables, "options.variables");
      const result = await this.run("act", options.timeout, (signal) => {
        const ctx = this.operationContext("act", page, variables, options.model, signal);
        return actWithCache(ctx, input, { selfHeal: this.opts.selfHeal, cache: this.cache });
      }).catch((e: unknown) => {
        throw maskError(e, variables);
      });
      this.record("act", { instruction: input, variables: Object.keys(variables), ...(options.model ? { model: describeModel(options.model) } : {}) }, maskDeep(result, variables));
      return result;
    }
    if (input === null || typeof input !== "object") throw new ServiceInvalidArgumentError("act: expected an instruction string or an Action object");
    const result = await this.run("act", options.timeout, () => performAction(page, input, this.snapshots.refs(page)));
    this.record("act", { action: input }, result);
    return result;
  }

  async observe(instruction?: string, options: ObserveOptions = {}): Promise<Action[]> {
    void this.handle;
    const page = options.page ?? this.page;
    const variables = parseVariables(options.variables, "options.variables");
    const result = await this.run("observe", options.timeout, (signal) => observeOp(this.operationContext("observe", page, variables, options.model, signal), instruction, options.selector ? { selector: options.selector } : {}));
    this.record("observe", { instruction, variables: Object.keys(variables) }, maskDeep(result, variables));
    return result;
  }

  async extract(): Promise<{ pageText: string }>;
  async extract(instruction: string, options?: ExtractOptions): Promise<{ extraction: string }>;
  async extract<T>(instruction: string, schema: z.ZodType<T>, options?: ExtractOptions): Promise<T>;
  async extract<T>(options: LegacyExtractOptions<T>): Promise<T | { extraction: string } | { pageText: string }>;
  async extract(a?: unknown, b?: unknown, c?: unknown): Promise<unknown> {
    void this.handle;
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
    const page = options.page ?? this.page;
    if (instruction === undefined && schema === undefined) {
      const { text } = await this.run("extract", options.timeout, () => extractPageText(page, this.snapshots, options.selector ? { selector: options.selector } : {}));
      this.record("extract", options.selector ? { selector: options.selector } : {}, { pageTextLength: text.length });
      return { pageText: text };
    }
    const result = await this.run("extract", options.timeout, (signal) =>
      extractWithModel(this.operationContext("extract", page, {}, model, signal), instruction, schema, options.selector ? { selector: options.selector } : {}),
    );
    this.record("extract", { instruction, ...(schema ? { schema: true } : {}), ...(options.selector ? { selector: options.selector } : {}) }, result);
    return result;
  }

  /** An agent for multi-step tasks (see src/agent/agent.ts); its usage goes to the `agent` metrics bucket. */
  agent(config?: AgentConfig): Agent {
    return createAgent(
      {
        page: () => this.page,
        snapshots: this.snapshots,
        client: (model) => this.models.client(model, "agent.model"),
        onUsage: (op, u, model) => {
          addUsage(this.metricsRecord, op, { promptTokens: u.inputTokens, completionTokens: u.outputTokens, reasoningTokens: u.reasoningTokens, cachedInputTokens: u.cachedInputTokens, inferenceTimeMs: u.inferenceTimeMs });
          this.log.debug(op, "model call", { model, ...u });
        },
        ...(this.inferenceLog ? { onInference: (r) => this.inferenceLog!.write(r) } : {}),
        systemPrompt: this.opts.raw.systemPrompt,
        selfHeal: this.opts.selfHeal,
        cache: this.agentCache,
        defaultModelName: () => {
          const raw = this.opts.raw;
          return isLLMClient(raw.llmClient) ? raw.llmClient.modelName : describeModel(raw.model ?? raw.modelName ?? DEFAULT_MODEL);
        },
        record: (parameters, result) => this.record("agent", parameters, result),
        maskNavigations: (mask) => {
          this.navigationMasks.add(mask);
          return () => void this.navigationMasks.delete(mask);
        },
      },
      config,
    );
  }

  async close(options: { force?: boolean } = {}): Promise<void> {
    if (!this.browser || this.closed) return;
    this.closed = true;
    const browser = this.browser;
    const attached = !browser.launched;
    if ((this.opts.keepAlive || attached) && !options.force) await browser.disconnect();
    else if (attached) {
      await browser.connection.root.send("Browser.close").catch(() => {});
      await browser.disconnect();
    } else await browser.close();
  }

  private operationContext(op: MetricOperation, page: Page, variables: Variables, model: unknown, signal: AbortSignal | undefined): OperationContext {
    const client: LLMClient = this.models.client(model);
    return {
      page,
      snapshots: this.snapshots,
      variables,
      ...(this.opts.raw.systemPrompt ? { systemPrompt: this.opts.raw.systemPrompt } : {}),
      inference: {
        client,
        onUsage: (u: ModelUsage) => {
          addUsage(this.metricsRecord, op, { promptTokens: u.inputTokens, completionTokens: u.outputTokens, reasoningTokens: u.reasoningTokens, cachedInputTokens: u.cachedInputTokens, inferenceTimeMs: u.inferenceTimeMs });
          this.log.debug(op, "model call", { model: client.modelName, ...u });
        },
        ...(this.inferenceLog ? { onInference: (r) => this.inferenceLog!.write(maskDeep(r, variables)) } : {}),
        ...(signal ? { signal } : {}),
      },
    };
  }

  /** Runs an operation under its deadline: the signal cancels model calls, the race bounds the rest. */
  private async run<T>(what: string, timeout: number | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (timeout === undefined) return work(undefined);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new ServiceInvalidArgumentError("options.timeout: expected a positive number of milliseconds");
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(controller.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            controller.abort();
            reject(new ServiceTimeoutError(`${what} did not finish within ${timeout} ms`));
          }, timeout);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private record(method: HistoryEntry["method"], parameters: unknown, result: unknown): void {
    this.historyEntries.push({ method, parameters, result, timestamp: new Date().toISOString() });
    this.log.debug(method, "done", { parameters });
  }
}

/** A model option for history: its name only (config objects may carry keys). */
function describeModel(model: unknown): string {
  if (typeof model === "string") return model;
  return typeof (model as { modelName?: unknown })?.modelName === "string" ? (model as { modelName: string }).modelName : "custom";
}

/** An error may quote a variable's value (e.g. "no option …" for a select): masked like everything recorded. */
function maskError(e: unknown, variables: Variables): unknown {
  if (e instanceof Error && Object.keys(variables).length > 0) {
    e.message = mask(e.message, variables);
    if (e.stack) e.stack = mask(e.stack, variables);
  }
  return e;
}
