/**
 * Operations on a session API (`svc serve` or the platform): act, observe, extract, navigate (every
 * page's goto) and agent runs execute on the server and stream their logs back to this process's logger.
 * A CDP connection to the same browser serves `context`/`page`; `metrics` are summed from the replay
 * route; the history is recorded here, masked like local history (the session's secrets).
 */
import { z } from "zod";
import type { Agent } from "../agent/agent.js";
import type { AgentConfig } from "../agent/options.js";
import type { ActRequest, BackendSetup, CloudSession, ExtractRequest, InitResult, ObserveRequest, ServiceBackend } from "../backend.js";
import type { BrowserHandle } from "../browser/connect.js";
import type { BrowserContext } from "../browser/context.js";
import type { GotoOptions, Page } from "../browser/page.js";
import { errorMessage, LLMResponseError, ServiceInvalidArgumentError } from "../errors.js";
import { describeModel, maskError } from "../local/backend.js";
import { ActResultSchema, type ActResult, type Action } from "../operations/action.js";
import type { SessionApi } from "../platform/session-api.js";
import { addUsage, emptyMetrics, METRIC_OPERATIONS, type HistoryEntry, type MetricOperation, type Metrics } from "../records.js";
import { createRemoteAgent } from "./agent.js";
import { forwardLog } from "./log.js";

export interface RemoteSetup extends BackendSetup {
  api: SessionApi;
  browser: BrowserHandle;
  init: InitResult;
  cloud: CloudSession;
  /** Releases the platform session (a no-op under keepAlive unless forced). */
  release(force: boolean): Promise<void>;
}

export class RemoteBackend implements ServiceBackend {
  readonly init: InitResult;
  readonly cloud: CloudSession;
  private readonly historyEntries: HistoryEntry[] = [];

  private constructor(
    private readonly s: RemoteSetup,
    private readonly sessionId: string,
  ) {
    this.init = s.init;
    this.cloud = s.cloud;
    s.browser.context.routeNavigation((page, url, options) => this.navigate(page, url, options));
    const watch = (page: Page) => {
      page.onNavigated((info) => this.record("navigate", { url: info.requestedUrl }, { url: info.url, status: info.status }));
      // The caller's own typing into a password field (page.type, a locator's fill) is a secret from then on.
      page.onPasswordText((text) => this.s.secrets.addDistinct("password", text));
    };
    s.browser.context.onPage(watch);
    for (const page of s.browser.context.pages()) watch(page);
  }

  static async start(s: RemoteSetup): Promise<RemoteBackend> {
    const raw = s.opts.raw;
    const { model, apiKey } = s.models.wire(undefined, "model");
    try {
      const started = await s.api.start(
        {
          modelName: typeof model === "string" ? model : String(model.modelName),
          domSettleTimeoutMs: s.opts.domSettleTimeout,
          verbose: s.opts.verbose,
          ...(raw.systemPrompt ? { systemPrompt: raw.systemPrompt } : {}),
          selfHeal: s.opts.selfHeal,
          browserbaseSessionID: s.cloud.id,
        },
        { modelApiKey: apiKey },
      );
      return new RemoteBackend(s, started.sessionId);
    } catch (e) {
      await s.browser.disconnect().catch(() => {});
      throw e;
    }
  }

  get context(): BrowserContext {
    return this.s.browser.context;
  }

  history(): ReadonlyArray<HistoryEntry> {
    return this.historyEntries.map((e) => ({ ...e }));
  }

  /** Summed from the server's replay of this session: every operation's token usage. */
  async metrics(): Promise<Metrics> {
    const replay = await this.s.api.replay(this.sessionId);
    const m = emptyMetrics();
    for (const page of replay.pages) {
      for (const a of page.actions ?? []) {
        const op = (a.method === "agentExecute" ? "agent" : a.method) as MetricOperation;
        const u = a.tokenUsage;
        if (!u || !(METRIC_OPERATIONS as readonly string[]).includes(op)) continue;
        addUsage(m, op, { promptTokens: u.inputTokens ?? 0, completionTokens: u.outputTokens ?? 0, reasoningTokens: u.reasoningTokens ?? 0, cachedInputTokens: u.cachedInputTokens ?? 0, inferenceTimeMs: u.timeMs ?? 0 });
      }
    }
    return m;
  }

  async act(r: ActRequest): Promise<ActResult> {
    const model = r.model === undefined && typeof r.input !== "string" ? undefined : this.s.models.wire(r.model);
    const options = { ...(model ? { model: model.model } : {}), ...(Object.keys(r.variables).length ? { variables: r.variables } : {}), ...(r.timeout ? { timeout: r.timeout } : {}) };
    const out = await this.call("act", { input: r.input, options, frameId: r.page.targetId }, model?.apiKey, r.serverCache, r.signal).catch((e: unknown) => {
      throw maskError(e, this.s.secrets);
    });
    const parsed = ActResultSchema.safeParse(out.result);
    if (!parsed.success) throw new LLMResponseError("act: the server's result is not an ActResult");
    const result: ActResult = { ...parsed.data, ...(out.cacheStatus ? { cacheStatus: out.cacheStatus } : {}) };
    this.record("act", typeof r.input === "string" ? { instruction: r.input, variables: Object.keys(r.variables), ...(r.model ? { model: describeModel(r.model) } : {}) } : { action: r.input }, result);
    return result;
  }

  async observe(r: ObserveRequest): Promise<Action[]> {
    const model = this.s.models.wire(r.model);
    const options = { model: model.model, ...(Object.keys(r.variables).length ? { variables: r.variables } : {}), ...(r.timeout ? { timeout: r.timeout } : {}), ...(r.selector ? { selector: r.selector } : {}) };
    const out = await this.call<Action[]>("observe", { ...(r.instruction !== undefined ? { instruction: r.instruction } : {}), options, frameId: r.page.targetId }, model.apiKey, undefined, r.signal);
    if (!Array.isArray(out.result)) throw new LLMResponseError("observe: the server's result is not a list of actions");
    this.record("observe", { instruction: r.instruction, variables: Object.keys(r.variables) }, out.result);
    return out.result;
  }

  async extract(r: ExtractRequest): Promise<unknown> {
    if (r.variables && Object.keys(r.variables).length) throw new ServiceInvalidArgumentError("options.variables: extract on a session API takes no variables (act, observe and agent do)");
    const needsModel = r.instruction !== undefined || r.schema !== undefined;
    if (r.interactiveOnly || r.maxTokens !== undefined || r.delta || r.from !== undefined) throw new ServiceInvalidArgumentError("snapshot: interactiveOnly, maxTokens, delta and from are not sent over the session API", { hint: 'use env "LOCAL"' });
    const model = needsModel ? this.s.models.wire(r.model) : undefined;
    let schema: unknown;
    if (r.schema) {
      try {
        schema = z.toJSONSchema(r.schema, { unrepresentable: "throw" });
      } catch (e) {
        throw new ServiceInvalidArgumentError(`schema: cannot be sent to the server as JSON Schema (${errorMessage(e)})`);
      }
    }
    const options = { ...(model ? { model: model.model } : {}), ...(r.timeout ? { timeout: r.timeout } : {}), ...(r.selector ? { selector: r.selector } : {}) };
    const body = { ...(r.instruction !== undefined ? { instruction: r.instruction } : {}), ...(schema ? { schema } : {}), options, frameId: r.page.targetId };
    const out = await this.call<unknown>("extract", body, model?.apiKey, r.serverCache, r.signal);
    let result = out.result;
    if (r.schema) {
      // The server validated against the JSON Schema; the zod schema may hold more (refinements, transforms).
      const parsed = r.schema.safeParse(result);
      if (!parsed.success) throw new LLMResponseError(`extract: the server's result does not fit the schema: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      result = parsed.data;
    }
    const scope = r.selector ? { selector: r.selector } : {};
    if (!needsModel) this.record("extract", scope, { pageTextLength: String((result as { pageText?: unknown })?.pageText ?? "").length });
    else this.record("extract", { instruction: r.instruction, ...(r.schema ? { schema: true } : {}), ...scope }, result);
    return result;
  }

  agent(config?: AgentConfig): Agent {
    return createRemoteAgent(
      {
        api: this.s.api,
        sessionId: this.sessionId,
        models: this.s.models,
        page: () => {
          const page = this.context.activePage();
          if (!page) throw new ServiceInvalidArgumentError("the browser has no open page");
          return page;
        },
        log: this.s.log,
        secrets: this.s.secrets,
        record: (parameters, result) => this.record("agent", parameters, result),
      },
      config,
    );
  }

  private async navigate(page: Page, url: string, options: GotoOptions): Promise<{ url: string; status: number | null }> {
    const opts = { ...(options.referer ? { referer: options.referer } : {}), ...(options.timeout ? { timeout: options.timeout } : {}), ...(options.waitUntil ? { waitUntil: options.waitUntil } : {}) };
    const out = await this.call<{ url?: unknown; status?: unknown } | null>("navigate", { url, options: opts, frameId: page.targetId });
    const res = out.result;
    return { url: typeof res?.url === "string" ? res.url : url, status: typeof res?.status === "number" ? res.status : null };
  }

  async close(options: { force: boolean }): Promise<void> {
    this.context.routeNavigation(undefined);
    try {
      // Always end the session-API session (its Service on the server); the server keeps a keepAlive
      // browser running, and release() below ends it when asked to.
      await this.s.api.end(this.sessionId).catch((e: unknown) => this.s.log.error("close", "the session API could not end the session", { error: errorMessage(e) }));
      await this.s.browser.disconnect();
    } finally {
      await this.s.release(options.force);
    }
  }

  /** `signal`: the caller's abort closes the request, and the server stops the operation (a client that left). */
  private call<T>(op: "act" | "extract" | "observe" | "navigate", body: Record<string, unknown>, modelApiKey?: string, cache?: boolean, signal?: AbortSignal) {
    return this.s.api.run<T>(this.sessionId, op, body, { modelApiKey, ...(cache === false ? { cache: false } : {}), ...(signal ? { signal } : {}), onLog: (line) => forwardLog(this.s.log, line) });
  }

  private record(method: HistoryEntry["method"], parameters: unknown, result: unknown): void {
    this.historyEntries.push({ method, ...this.s.secrets.deep({ parameters, result }), timestamp: new Date().toISOString() });
  }
}

