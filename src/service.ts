/**
 * The composition root of the library: options in, a browser connection, the operations wired to it,
 * history and metrics recorded around them. It holds no operation logic of its own.
 */
import { randomUUID } from "node:crypto";
import { openBrowser, type BrowserHandle } from "./browser/connect.js";
import type { BrowserContext } from "./browser/context.js";
import type { Page } from "./browser/page.js";
import {
  MissingLLMConfigurationError,
  ServiceEnvironmentError,
  ServiceInvalidArgumentError,
  ServiceNotInitializedError,
  ServiceTimeoutError,
} from "./errors.js";
import { createLogger, type Logger } from "./log.js";
import type { ActResult, Action } from "./operations/action.js";
import { extractPageText } from "./operations/extract.js";
import { performAction } from "./operations/perform.js";
import { resolveOptions, type ResolvedOptions, type ServiceOptions } from "./options.js";
import { emptyMetrics, type HistoryEntry, type Metrics } from "./records.js";
import { PageSnapshots } from "./operations/snapshots.js";

export interface InitResult {
  debugUrl: string;
  sessionUrl: string;
  sessionId: string;
}

export interface ActOptions {
  page?: Page;
  timeout?: number;
  model?: unknown;
  variables?: Record<string, unknown>;
  serverCache?: boolean;
}

export class Service {
  private readonly opts: ResolvedOptions;
  private readonly log: Logger;
  private browser: BrowserHandle | undefined;
  private initResult: InitResult | undefined;
  private initializing: Promise<InitResult> | undefined;
  private readonly historyEntries: HistoryEntry[] = [];
  private readonly metricsRecord: Metrics = emptyMetrics();
  private readonly snapshots = new PageSnapshots();
  private closed = false;

  constructor(options: ServiceOptions = {}) {
    this.opts = resolveOptions(options);
    this.log = createLogger({ verbose: this.opts.verbose, ...(this.opts.logger ? { sink: this.opts.logger } : {}) });
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
    this.initResult = {
      sessionId: randomUUID(),
      sessionUrl: this.browser.wsEndpoint,
      debugUrl: `http://127.0.0.1:${port}/json`,
    };
    return this.initResult;
  }

  private watchNavigations(page: Page): void {
    page.onNavigated((info) => this.record("navigate", { url: info.requestedUrl }, { url: info.url, status: info.status }));
  }

  private ensureInit(): void {
    void this.handle;
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
    this.ensureInit();
    if (typeof input === "string") {
      throw new MissingLLMConfigurationError("act(instruction) needs a model, and model access is not part of this version", {
        hint: "pass an Action {selector, description, method, arguments} to act() instead",
      });
    }
    if (input === null || typeof input !== "object") throw new ServiceInvalidArgumentError("act: expected an instruction string or an Action object");
    const page = options.page ?? this.page;
    const result = await this.withTimeout(performAction(page, input, this.snapshots.refs(page)), options.timeout, "act");
    this.record("act", { action: input }, result);
    return result;
  }

  async extract(): Promise<{ pageText: string }>;
  async extract(options: { selector?: string; page?: Page }): Promise<{ pageText: string }>;
  async extract(instruction?: unknown, ...rest: unknown[]): Promise<{ pageText: string }> {
    this.ensureInit();
    const opts = (instruction && typeof instruction === "object" ? instruction : {}) as { selector?: string; page?: Page; instruction?: string; schema?: unknown };
    if (typeof instruction === "string" || opts.instruction || opts.schema || rest.length) {
      throw new MissingLLMConfigurationError("extract with an instruction or schema needs a model, and model access is not part of this version", {
        hint: "call extract() with no arguments for the page text",
      });
    }
    const page = opts.page ?? this.page;
    const { text } = await extractPageText(page, this.snapshots, opts.selector ? { selector: opts.selector } : {});
    const result = { pageText: text };
    this.record("extract", opts.selector ? { selector: opts.selector } : {}, { pageTextLength: text.length });
    return result;
  }

  async observe(_instruction?: string): Promise<Action[]> {
    this.ensureInit();
    throw new MissingLLMConfigurationError("observe() needs a model, and model access is not part of this version");
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

  private record(method: HistoryEntry["method"], parameters: unknown, result: unknown): void {
    this.historyEntries.push({ method, parameters, result, timestamp: new Date().toISOString() });
    this.log.debug(method, "done", { parameters });
  }

  private async withTimeout<T>(work: Promise<T>, timeout: number | undefined, what: string): Promise<T> {
    if (timeout === undefined) return work;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ServiceTimeoutError(`${what} did not finish within ${timeout} ms`)), timeout)))]);
    } finally {
      clearTimeout(timer);
    }
  }
}
