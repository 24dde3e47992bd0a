/**
 * The one interface behind Service: where operations run. LocalBackend drives a browser over CDP in this process;
 * RemoteBackend sends them to a session API and keeps CDP only for `context`/`page`. Service picks one at init() and
 * never branches on it again; requests arrive already normalized and validated by Service.
 */
import type { z } from "zod";
import type { Agent } from "./agent/agent.js";
import type { AgentConfig } from "./agent/options.js";
import type { BrowserContext } from "./browser/context.js";
import type { Page } from "./browser/page.js";
import type { ActResult, Action } from "./operations/action.js";
import type { Variables } from "./operations/variables.js";
import type { AgentCache } from "./agent/cache.js";
import type { ActCache } from "./cache/act-cache.js";
import type { InferenceLog } from "./inference-log.js";
import type { Logger } from "./log.js";
import type { ModelRegistry } from "./model-choice.js";
import type { SearchBackend } from "./platform/search.js";
import type { ResolvedOptions } from "./options.js";
import type { HistoryEntry, Metrics } from "./records.js";
import type { Secrets } from "./util/secrets.js";
import type { Abortable } from "./util/abort.js";

export interface InitResult {
  debugUrl: string;
  sessionUrl: string;
  sessionId: string;
}

/** The cloud session behind a backend (undefined for local runs). */
export interface CloudSession {
  id: string;
  url: string;
  debugUrl: string;
}

export interface ActRequest extends Abortable {
  input: string | Action;
  page: Page;
  variables: Variables;
  model?: unknown;
  timeout?: number;
  /** false: do not read or write the action cache (server cache) for this call. */
  serverCache?: boolean;
}

export interface ObserveRequest extends Abortable {
  instruction?: string;
  page: Page;
  variables: Variables;
  model?: unknown;
  timeout?: number;
  selector?: string;
}

export interface ExtractRequest extends Abortable {
  instruction?: string;
  schema?: z.ZodType;
  page: Page;
  variables?: Variables;
  model?: unknown;
  timeout?: number;
  selector?: string;
  serverCache?: boolean;
  /** The page text form only (no instruction, no schema): the snapshot's interactive-only mode, token budget, delta, start ref. */
  interactiveOnly?: boolean;
  maxTokens?: number;
  delta?: boolean;
  from?: string;
}

export interface ServiceBackend {
  readonly init: InitResult;
  readonly cloud: CloudSession | undefined;
  readonly context: BrowserContext;
  act(request: ActRequest): Promise<ActResult>;
  observe(request: ObserveRequest): Promise<Action[]>;
  /** `{pageText}` without instruction and schema; `{extraction}` with an instruction only; else the schema's type. */
  extract(request: ExtractRequest): Promise<unknown>;
  agent(config?: AgentConfig): Agent;
  metrics(): Promise<Metrics>;
  history(): ReadonlyArray<HistoryEntry>;
  /** force: end the browser even when keepAlive or attached. */
  close(options: { force: boolean }): Promise<void>;
}

/** What every backend is built from: the validated options and the parts Service owns. */
export interface BackendSetup {
  opts: ResolvedOptions;
  log: Logger;
  models: ModelRegistry;
  cache: ActCache | undefined;
  agentCache: AgentCache | undefined;
  inferenceLog: InferenceLog | undefined;
  /** The session's secrets (util/secrets.ts): the history, the log and every model request are masked with them. */
  secrets: Secrets;
  /** The agent's search backend (useSearch), resolved when a run asks for it; undefined: none configured. */
  search?: () => SearchBackend | undefined;
}
