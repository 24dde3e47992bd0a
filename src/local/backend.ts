/**
 * Operations in this process over one CDP connection: the browser may be a Chrome svc launched, any
 * cdpUrl, or a cloud session's connectUrl. History and metrics are recorded here, around each operation.
 */
import type { Agent } from "../agent/agent.js";
import { createAgent } from "../agent/agent.js";
import type { AgentConfig } from "../agent/options.js";
import type { ActRequest, BackendSetup, CloudSession, ExtractRequest, InitResult, ObserveRequest, ServiceBackend } from "../backend.js";
import type { BrowserHandle } from "../browser/connect.js";
import type { BrowserContext } from "../browser/context.js";
import { describeDialog, type HandledDialog } from "../browser/dialogs.js";
import { describeDownload } from "../browser/downloads.js";
import type { Page } from "../browser/page.js";
import { errorMessage, ServiceNotInitializedError } from "../errors.js";
import type { LLMClient, ModelUsage } from "../model/index.js";
import { DEFAULT_MODEL, isLLMClient } from "../model-choice.js";
import type { ActResult, Action } from "../operations/action.js";
import { actWithCache } from "../operations/act-cached.js";
import { actInstruction } from "../operations/act-literal.js";
import type { OperationContext } from "../operations/context.js";
import { extractPageText, extractWithModel } from "../operations/extract.js";
import { observe as observeOp } from "../operations/observe.js";
import { performAction } from "../operations/perform.js";
import { PageSnapshots } from "../operations/snapshots.js";
import type { Variables } from "../operations/variables.js";
import { addUsage, emptyMetrics, type HistoryEntry, type MetricOperation, type Metrics } from "../records.js";
import { type Abortable, Cancellation } from "../util/abort.js";
import type { Secrets } from "../util/secrets.js";

/**
 * How long a page may go without running a trivial script while an operation runs on it: a page whose script
 * never yields ends the operation with TIMEOUT after this, whatever the operation's own timeout.
 */
export const PAGE_ANSWER_TIMEOUT_MS = 30_000;
/** Pause between two of those checks while an operation runs. */
const PAGE_CHECK_EVERY_MS = 5_000;

/** Checks, while an operation runs, that its page still answers; one that does not aborts it. */
function watchPage(page: Page, cancel: Cancellation): () => void {
  const stop = new AbortController();
  const both = AbortSignal.any([stop.signal, cancel.signal]);
  void (async () => {
    while (!both.aborted) {
      try {
        await page.answers(PAGE_ANSWER_TIMEOUT_MS, both);
      } catch (e) {
        if (!both.aborted && !page.isClosed) cancel.abort(e);
        return;
      }
      await new Promise<void>((r) => {
        const wake = () => {
          clearTimeout(t);
          both.removeEventListener("abort", wake);
          r();
        };
        const t = setTimeout(wake, PAGE_CHECK_EVERY_MS);
        both.addEventListener("abort", wake, { once: true });
      });
    }
  })();
  return () => stop.abort();
}

export interface LocalBackendSetup extends BackendSetup {
  browser: BrowserHandle;
  init: InitResult;
  cloud?: CloudSession;
  /** After the browser is closed or disconnected (a cloud session's release). */
  onClose?: (options: { force: boolean }) => Promise<void>;
}

export class LocalBackend implements ServiceBackend {
  readonly init: InitResult;
  readonly cloud: CloudSession | undefined;
  private readonly historyEntries: HistoryEntry[] = [];
  private readonly metricsRecord: Metrics = emptyMetrics();
  private readonly snapshots: PageSnapshots;

  constructor(private readonly s: LocalBackendSetup) {
    this.init = s.init;
    this.cloud = s.cloud;
    this.snapshots = new PageSnapshots(s.opts.raw.refStore);
    s.browser.context.onPage((page) => this.watchNavigations(page));
    for (const page of s.browser.context.pages()) this.watchNavigations(page);
    s.browser.context.dialogs.onDialog((d) => this.recordDialog(d));
    s.browser.downloads?.onDownload((d) => {
      this.record("download", { url: d.url }, { name: d.name, path: d.path, size: d.size, state: d.state });
      this.s.log.info("download", describeDownload(d), { url: d.url });
    });
  }

  /** A dialog svc answered (src/browser/dialogs.ts) is part of what happened: history and log (both masked). */
  private recordDialog(d: HandledDialog): void {
    this.record("dialog", { type: d.type, message: d.message, url: d.url }, { accepted: d.accepted, ...(d.promptText !== undefined ? { promptText: d.promptText } : {}), by: d.by });
    this.s.log.info("dialog", describeDialog(d), { url: d.url });
  }

  get context(): BrowserContext {
    return this.s.browser.context;
  }

  private watchNavigations(page: Page): void {
    // What goes into a password field is a secret of the session from then on, whoever typed it.
    page.onPasswordText((text) => this.s.secrets.addDistinct("password", text));
    page.onNavigated((info) => this.record("navigate", { url: info.requestedUrl }, { url: info.url, status: info.status }));
  }

  metrics(): Promise<Metrics> {
    return Promise.resolve({ ...this.metricsRecord });
  }

  history(): ReadonlyArray<HistoryEntry> {
    return this.historyEntries.map((e) => ({ ...e }));
  }

  async act(r: ActRequest): Promise<ActResult> {
    const { input, page, variables } = r;
    if (typeof input === "string") {
      const parameters = { instruction: input, variables: Object.keys(variables), ...(r.model ? { model: describeModel(r.model) } : {}) };
      const result = await this.run("act", page, r, parameters, (signal, deadline) => {
        const env = { page, snapshots: this.snapshots, variables, secrets: this.s.secrets, signal, ...(deadline !== undefined ? { deadline } : {}) };
        return actInstruction(env, input, {
          context: () => ({ ...this.operationContext("act", page, variables, r.model, signal), ...(deadline !== undefined ? { deadline } : {}) }),
          act: (ctx) => actWithCache(ctx, input, { selfHeal: this.s.opts.selfHeal, cache: r.serverCache === false ? undefined : this.s.cache, warn: (m) => this.s.log.warn("act", m) }),
        });
      });
      this.record("act", parameters, result);
      return result;
    }
    // The element's wait ends just before the operation's deadline, so its own error (what covers it) surfaces.
    const result = await this.run("act", page, r, { action: input }, (signal, deadline) => performAction(page, input, this.snapshots.refs(page), { ...(deadline !== undefined ? { deadline } : {}), signal }));
    this.record("act", { action: input }, result);
    return result;
  }

  async observe(r: ObserveRequest): Promise<Action[]> {
    const parameters = { instruction: r.instruction, variables: Object.keys(r.variables) };
    const result = await this.run("observe", r.page, r, parameters, (signal) =>
      observeOp(this.operationContext("observe", r.page, r.variables, r.model, signal), r.instruction, r.selector ? { selector: r.selector } : {}),
    );
    this.record("observe", parameters, result);
    return result;
  }

  async extract(r: ExtractRequest): Promise<unknown> {
    const scope = r.selector ? { selector: r.selector } : {};
    if (r.instruction === undefined && r.schema === undefined) {
      const take = {
        ...scope,
        shown: true,
        ...(r.interactiveOnly ? { interactiveOnly: true } : {}),
        ...(r.maxTokens !== undefined ? { maxTokens: r.maxTokens } : {}),
        ...(r.delta ? { delta: true } : {}),
        ...(r.from !== undefined ? { from: r.from } : {}),
      };
      const { text } = await this.run("extract", r.page, r, scope, () => extractPageText(r.page, this.snapshots, take));
      this.record("extract", scope, { pageTextLength: text.length });
      return { pageText: text };
    }
    const variables = r.variables ?? {};
    const parameters = { instruction: r.instruction, ...(r.schema ? { schema: true } : {}), ...scope, ...(Object.keys(variables).length ? { variables: Object.keys(variables) } : {}) };
    const result = await this.run("extract", r.page, r, parameters, (signal) => extractWithModel(this.operationContext("extract", r.page, variables, r.model, signal), r.instruction, r.schema, scope));
    this.record("extract", parameters, result);
    return result;
  }

  /** An agent for multi-step tasks (see src/agent/agent.ts); its usage goes to the `agent` metrics bucket. */
  agent(config?: AgentConfig): Agent {
    const { opts, models, log } = this.s;
    return createAgent(
      {
        page: () => this.activePage(),
        dialogs: this.context.dialogs,
        ...(this.s.browser.downloads ? { downloads: this.s.browser.downloads } : {}),
        snapshots: this.snapshots,
        client: (model) => models.client(model, "agent.model"),
        onUsage: (op, u, model) => {
          this.count(op, u);
          log.debug(op, "model call", { model, ...u });
        },
        ...(this.s.inferenceLog ? { onInference: (rec) => this.s.inferenceLog!.write(rec) } : {}),
        secrets: this.s.secrets,
        systemPrompt: opts.raw.systemPrompt,
        selfHeal: opts.selfHeal,
        ...(this.s.search ? { search: this.s.search } : {}),
        cache: this.s.agentCache,
        warn: (m) => log.warn("agent", m),
        defaultModelName: () => {
          const raw = opts.raw;
          return isLLMClient(raw.llmClient) ? raw.llmClient.modelName : describeModel(raw.model ?? raw.modelName ?? DEFAULT_MODEL);
        },
        record: (parameters, result) => this.record("agent", parameters, result),
      },
      config,
    );
  }

  async close(options: { force: boolean }): Promise<void> {
    const browser = this.s.browser;
    const attached = !browser.launched;
    try {
      if ((this.s.opts.keepAlive || attached) && !options.force) await browser.disconnect();
      else if (attached) {
        await browser.connection.root.send("Browser.close").catch(() => {});
        await browser.disconnect();
      } else await browser.close();
    } finally {
      await this.s.onClose?.(options);
    }
  }

  private activePage(): Page {
    const page = this.context.activePage();
    if (!page) throw new ServiceNotInitializedError("the browser has no open page", { hint: "open one with context.newPage()" });
    return page;
  }

  private count(op: MetricOperation, u: ModelUsage): void {
    addUsage(this.metricsRecord, op, { promptTokens: u.inputTokens, completionTokens: u.outputTokens, reasoningTokens: u.reasoningTokens, cachedInputTokens: u.cachedInputTokens, inferenceTimeMs: u.inferenceTimeMs });
  }

  private operationContext(op: MetricOperation, page: Page, variables: Variables, model: unknown, signal: AbortSignal | undefined): OperationContext {
    const client: LLMClient = this.s.models.client(model);
    return {
      page,
      snapshots: this.snapshots,
      variables,
      secrets: this.s.secrets,
      mask: this.s.secrets.mask,
      ...(this.s.opts.raw.systemPrompt ? { systemPrompt: this.s.opts.raw.systemPrompt } : {}),
      inference: {
        client,
        onUsage: (u: ModelUsage) => {
          this.count(op, u);
          this.s.log.debug(op, "model call", { model: client.modelName, ...u });
        },
        ...(this.s.inferenceLog ? { onInference: (rec) => this.s.inferenceLog!.write(rec) } : {}),
        ...(signal ? { signal } : {}),
      },
    };
  }

  /**
   * Runs an operation under one Cancellation (the caller's signal and the timeout) in its page's turn, so a
   * navigation or another operation finishes first. A stopped operation ends its work before it rejects and is
   * recorded as stopped. An error may quote a secret ("no option …" of a select), so its message is masked before it
   * leaves.
   */
  private async run<T>(what: MetricOperation, page: Page, r: Abortable & { timeout?: number | undefined }, parameters: unknown, work: (signal: AbortSignal, deadline: number | undefined) => Promise<T>): Promise<T> {
    const cancel = new Cancellation({ signal: r.signal, timeout: r.timeout, what });
    try {
      // A page that stops answering (a script that never yields) ends the operation with TIMEOUT, instead of
      // a call held for Chrome's protocol timeout.
      const stopWatching = watchPage(page, cancel);
      try {
        return await cancel.run((signal, deadline) => page.operations.run(() => work(signal, deadline), signal));
      } finally {
        stopWatching();
      }
    } catch (e) {
      if (cancel.aborted) {
        const code = (e as { code?: unknown }).code;
        this.record(what, parameters, { success: false, stopped: code === "TIMEOUT" ? "timeout" : "aborted", error: { code: typeof code === "string" ? code : "ABORTED", message: errorMessage(e) } });
      }
      throw maskError(e, this.s.secrets);
    }
  }

  /** The history holds a masked copy (util/secrets.ts); what the caller got back is not touched. */
  private record(method: HistoryEntry["method"], parameters: unknown, result: unknown): void {
    const masked = this.s.secrets.deep({ parameters, result });
    this.historyEntries.push({ method, ...masked, timestamp: new Date().toISOString() });
    this.s.log.debug(method, "done", { parameters: masked.parameters });
  }
}

/** A model option for history: its name only (config objects may carry keys). */
export function describeModel(model: unknown): string {
  if (typeof model === "string") return model;
  return typeof (model as { modelName?: unknown })?.modelName === "string" ? (model as { modelName: string }).modelName : "custom";
}

/** An error may quote a variable's value (e.g. "no option …" for a select): masked like everything recorded. */
export function maskError(e: unknown, secrets: Secrets): unknown {
  if (e instanceof Error && secrets.size > 0) {
    e.message = secrets.text(e.message);
    if (e.stack) e.stack = secrets.text(e.stack);
  }
  return e;
}
