/**
 * The session API's operations as library calls: each validated body becomes an Operation (what runs on
 * the Service, and what the replay records of it). The request's model key and cache bypass arrive in
 * `RequestModel`. Input the library cannot take is a 400 here, before any stream starts; streaming and
 * envelopes are the routes' business.
 */
import { z } from "zod";
import { stagehandAgentEntry } from "../stagehand/agent-entry.js";
import { type Action, AgentCache, type AgentExecuteRequest, type AgentResult, AgentExecuteRequestSchema, type ModelEndpointPolicy, type Page, ServiceInvalidArgumentError } from "../../index.js";
import { checkModelEndpoint } from "../../internal.js";
import { ownerCacheDir } from "./service-sessions.js";
import type { ApiSession, Operation } from "./session.js";
import { type ActBody, type ExtractBody, type NavigateBody, type ObserveBody, withModelKey } from "./bodies.js";
import { agentEventLine } from "../events.js";
import { abortable } from "../../util/abort.js";
import { fromJsonSchema } from "../../util/json-schema.js";

export interface RequestModel {
  /** `x-model-api-key`. */
  key: string | undefined;
  /** `browserbase-cache-bypass: true`. */
  bypassCache: boolean;
  /** What a model config the request brings may point at (the Services enforce it too; see isolation/model-policy.ts). */
  endpoints: ModelEndpointPolicy;
}

/** What the extract prompt asks when only a schema is given (the library's own words for that case). */
const SCHEMA_ONLY_INSTRUCTION = "Extract the data described by the schema.";

/** A model option as a name only, for the replay (config objects may carry keys). */
function modelLabel(model: unknown): string | undefined {
  if (model === undefined || model === null) return undefined;
  if (typeof model === "string") return model;
  const name = (model as { modelName?: unknown }).modelName;
  return typeof name === "string" ? name : "custom";
}

/**
 * The call's model: its own, else (when the request carries a key) the session's, with the key injected.
 * A model the request brings is checked against the endpoint policy now, so a refused endpoint is a 400
 * naming the field before any stream starts.
 */
function callModel(session: ApiSession, model: unknown, rm: RequestModel, field: string): unknown {
  checkModelEndpoint(model, rm.endpoints, field);
  return withModelKey(model ?? (rm.key ? session.modelName : undefined), rm.key);
}

const names = (variables: Record<string, unknown> | undefined) => Object.keys(variables ?? {});

export function actOperation(session: ApiSession, body: ActBody, rm: RequestModel): Operation {
  const o = body.options ?? {};
  const page = session.page(body.frameId);
  const model = callModel(session, o.model, rm, "options.model");
  const input = body.input;
  // The files would be read from this server's disk: a client uploads its own files, not the server's.
  if (typeof input !== "string" && input.method === "setInputFiles") throw new ServiceInvalidArgumentError("input.method: setInputFiles is not available over the session API");
  return {
    method: "act",
    parameters: typeof input === "string" ? { instruction: input, variables: names(o.variables), ...(o.model ? { model: modelLabel(o.model) } : {}) } : { action: input },
    variables: o.variables,
    page,
    async run({ service, signal }) {
      const options = { page, model, signal, ...(o.variables ? { variables: o.variables } : {}), ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), ...(rm.bypassCache ? { serverCache: false } : {}) };
      const result = typeof input === "string" ? await service.act(input, options) : await service.act(input as Action, options);
      return { result, cacheStatus: result.cacheStatus };
    },
  };
}

/** A JSON Schema from the wire as the zod schema the library validates extractions with. */
function schemaFromJson(schema: Record<string, unknown>): z.ZodType {
  try {
    return fromJsonSchema(schema);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`schema: not a usable JSON Schema (${e instanceof Error ? e.message.split("\n")[0] : "invalid"})`);
  }
}

export function extractOperation(session: ApiSession, body: ExtractBody, rm: RequestModel): Operation {
  const o = body.options ?? {};
  const page = session.page(body.frameId);
  const schema = body.schema ? schemaFromJson(body.schema) : undefined;
  const instruction = body.instruction?.trim() ? body.instruction : undefined;
  const model = callModel(session, o.model, rm, "options.model");
  return {
    method: "extract",
    parameters: { ...(instruction ? { instruction } : {}), ...(body.schema ? { schema: body.schema } : {}), ...(o.selector ? { selector: o.selector } : {}), ...(o.model ? { model: modelLabel(o.model) } : {}) },
    page,
    async run({ service, signal }) {
      const options = { page, model, signal, ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), ...(o.selector ? { selector: o.selector } : {}) };
      if (schema) return { result: await service.extract(instruction ?? SCHEMA_ONLY_INSTRUCTION, schema, options) };
      if (instruction) return { result: await service.extract(instruction, options) };
      // The page's text: no model, so the legacy form (which takes a page and a selector) is enough.
      return { result: await service.extract({ page, ...(o.selector ? { selector: o.selector } : {}) }) };
    },
  };
}

export function observeOperation(session: ApiSession, body: ObserveBody, rm: RequestModel): Operation {
  const o = body.options ?? {};
  const page = session.page(body.frameId);
  const model = callModel(session, o.model, rm, "options.model");
  const instruction = body.instruction?.trim() ? body.instruction : undefined;
  return {
    method: "observe",
    parameters: { ...(instruction ? { instruction } : {}), variables: names(o.variables), ...(o.selector ? { selector: o.selector } : {}), ...(o.model ? { model: modelLabel(o.model) } : {}) },
    variables: o.variables,
    page,
    async run({ service, signal }) {
      const options = { page, model, signal, ...(o.variables ? { variables: o.variables } : {}), ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), ...(o.selector ? { selector: o.selector } : {}) };
      return { result: await service.observe(instruction, options) };
    },
  };
}

export function navigateOperation(session: ApiSession, body: NavigateBody): Operation {
  const o = body.options ?? {};
  const page = session.page(body.frameId);
  const goto = { ...(o.waitUntil ? { waitUntil: o.waitUntil } : {}), ...(o.timeout !== undefined ? { timeout: o.timeout } : {}), ...(o.referer ? { referer: o.referer } : {}) };
  return {
    method: "navigate",
    parameters: { url: body.url, ...(Object.keys(goto).length ? { options: goto } : {}) },
    page,
    async run({ signal }) {
      // Queued behind the page's running operation; a client that leaves stops waiting for it (the browser's
      // navigation itself, once sent, is the browser's to finish).
      return { result: (await abortable(page.goto(body.url, goto), signal)) ?? null };
    },
  };
}

async function viewportHeight(page: Page): Promise<number> {
  const h = await page.evaluate("innerHeight").catch(() => undefined);
  return typeof h === "number" && h > 0 ? h : 720;
}

export type AgentBody = z.output<typeof AgentExecuteRequestSchema>;

/**
 * agentExecute: the run's events stream as log events; the request's signal aborts it (`completed: false`). With
 * `shouldCache` the cache entry used or stored comes back as `cacheEntry`, so an identical request replays with no
 * model call when the page reached matches (agent/cache.ts).
 */
export function agentOperation(session: ApiSession, body: AgentBody, rm: RequestModel, cacheDir: string): Operation {
  const page = session.page(body.frameId);
  const c = body.agentConfig;
  const model = callModel(session, c.model, rm, "agentConfig.model");
  checkModelEndpoint(c.executionModel, rm.endpoints, "agentConfig.executionModel");
  const executionModel = withModelKey(c.executionModel, rm.key);
  const config = { ...c, ...(model !== undefined ? { model } : {}), ...(executionModel !== undefined ? { executionModel } : {}) } as AgentExecuteRequest["agentConfig"];
  const x = body.executeOptions;
  // Built now so a bad agent config is a 400 before any stream starts.
  const agent = session.service.agent(config);
  return {
    method: "agent",
    parameters: {
      instruction: x.instruction,
      ...(c.mode ? { mode: c.mode } : {}),
      ...(x.maxSteps !== undefined ? { maxSteps: x.maxSteps } : {}),
      variables: names(x.variables),
      ...(c.model ? { model: modelLabel(c.model) } : {}),
      ...(c.executionModel ? { executionModel: modelLabel(c.executionModel) } : {}),
    },
    variables: x.variables,
    page,
    async run({ service, signal, log }) {
      // The agent works on the active page: a frameId chooses it.
      if (body.frameId) service.context.setActivePage(page);
      const stop = agent.subscribe((event) => log(agentEventLine(event)));
      const startUrl = service.page.url();
      let result: AgentResult;
      try {
        result = await agent.execute({ ...x, signal, ...(rm.bypassCache ? { cache: false } : {}) });
      } finally {
        stop();
      }
      const cacheKey = result.metadata?.cacheKey;
      const stored = body.shouldCache && result.success && typeof cacheKey === "string" ? new AgentCache(ownerCacheDir(cacheDir, session.owner)).get(cacheKey) : undefined;
      // The official client's own cache entry for this run (stagehand/agent-entry.ts), when it can replay it.
      const entry = stored
        ? stagehandAgentEntry({
            instruction: x.instruction,
            startUrl,
            executeOptions: x,
            agentConfig: c,
            sessionModel: session.modelName,
            sessionSystemPrompt: session.systemPrompt,
            steps: stored.steps,
            result: service.secrets.deep(result),
            viewportHeight: await viewportHeight(service.page),
          })
        : undefined;
      return { result, extra: entry ? { cacheEntry: entry } : {} };
    },
  };
}
