/**
 * Request bodies of the session API, built from the library's own schemas (ActionSchema, ModelConfigSchema,
 * VariablesSchema, LocalBrowserLaunchOptionsSchema; agentExecute uses AgentExecuteRequestSchema as is).
 * Objects are loose where the seed says nothing: official clients send fields this server has no use for
 * (useTouch, ignoreSelectors, screenshot …); the fields it acts on are validated.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { z } from "zod";
import { ActionSchema, LocalBrowserLaunchOptionsSchema, ModelConfigSchema, VariablesSchema } from "../index.js";
import { HttpError } from "./http-error.js";

const timeout = z.number().positive().optional();
const frameId = z.string().min(1).nullable().optional();
const streamResponse = z.boolean().nullable().optional();

/**
 * Launch options a client may choose. The rest (executablePath, args, ignoreDefaultArgs, userDataDir, port,
 * cdpUrl) decide which program runs on the server, with which command line and files, so they belong to
 * the operator (`svc serve` flags), never to a request: Chrome flags such as `--renderer-cmd-prefix` run
 * arbitrary commands.
 */
const CLIENT_LAUNCH_OPTIONS = ["headless", "viewport", "devtools", "proxy", "ignoreHTTPSErrors"] as const;

const ClientLaunchOptionsSchema = LocalBrowserLaunchOptionsSchema.superRefine((o, ctx) => {
  for (const key of Object.keys(o)) {
    if (!(CLIENT_LAUNCH_OPTIONS as readonly string[]).includes(key)) {
      ctx.addIssue({ code: "custom", path: [key], message: `not settable over HTTP (the server's operator sets it); allowed: ${CLIENT_LAUNCH_OPTIONS.join(", ")}` });
    }
  }
});

export const StartBodySchema = z.looseObject({
  modelName: z.string().min(1, "the model name is empty"),
  domSettleTimeoutMs: z.number().int().min(0).optional(),
  verbose: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  systemPrompt: z.string().optional(),
  selfHeal: z.boolean().optional(),
  browserbaseSessionID: z.string().min(1).optional(),
  /** Validated by the platform (POST /v1/sessions rules). */
  browserbaseSessionCreateParams: z.record(z.string(), z.unknown()).optional(),
  browser: z
    .looseObject({
      type: z.enum(["local", "browserbase"]).optional(),
      cdpUrl: z.url({ protocol: /^(wss?|https?)$/, error: "expected a ws(s):// or http(s):// URL" }).optional(),
      launchOptions: ClientLaunchOptionsSchema.optional(),
    })
    .optional(),
});
export type StartBody = z.output<typeof StartBodySchema>;

export const ActBodySchema = z.looseObject({
  input: z.union([z.string().trim().min(1, "the instruction is empty"), ActionSchema], { error: "expected an instruction string or an Action {selector, description, method, arguments}" }),
  options: z.looseObject({ model: ModelConfigSchema.optional(), variables: VariablesSchema.optional(), timeout }).nullable().optional(),
  frameId,
  streamResponse,
});
export type ActBody = z.output<typeof ActBodySchema>;

export const ExtractBodySchema = z.looseObject({
  instruction: z.string().optional(),
  /** A JSON Schema; converted to zod for the library. */
  schema: z.record(z.string(), z.unknown()).optional(),
  options: z
    .looseObject({ model: ModelConfigSchema.optional(), timeout, selector: z.string().min(1).optional(), ignoreSelectors: z.array(z.string()).optional() })
    .nullable()
    .optional(),
  frameId,
  streamResponse,
});
export type ExtractBody = z.output<typeof ExtractBodySchema>;

export const ObserveBodySchema = z.looseObject({
  instruction: z.string().optional(),
  options: z
    .looseObject({ model: ModelConfigSchema.optional(), variables: VariablesSchema.optional(), timeout, selector: z.string().min(1).optional() })
    .nullable()
    .optional(),
  frameId,
  streamResponse,
});
export type ObserveBody = z.output<typeof ObserveBodySchema>;

export const NavigateBodySchema = z.looseObject({
  url: z.string().trim().min(1, "expected a URL"),
  // Official clients also send their default `model` here; navigation needs none.
  options: z
    .looseObject({ referer: z.string().optional(), timeout, waitUntil: z.enum(["load", "domcontentloaded", "networkidle"]).optional() })
    .nullable()
    .optional(),
  frameId,
  streamResponse,
});
export type NavigateBody = z.output<typeof NavigateBodySchema>;

/**
 * The request's `x-model-api-key` as the `apiKey` of a model config (a string becomes `{modelName,
 * apiKey}`), unless the config brings its own key or provider-native auth (Vertex service account, Azure
 * Entra token).
 */
export function withModelKey(model: unknown, key: string | undefined): unknown {
  if (!key || model === undefined || model === null) return model;
  if (typeof model === "string") return { modelName: model, apiKey: key };
  if (typeof model === "object" && !Array.isArray(model)) {
    const m = model as Record<string, unknown>;
    if (m.apiKey === undefined && m.auth === undefined) return { ...m, apiKey: key };
  }
  return model;
}

/** `browserbase-cache-bypass: true`: skip the server's caches for this call. */
export function cacheBypassed(header: string | undefined): boolean {
  return (header ?? "").trim().toLowerCase() === "true";
}

/**
 * A client-given cdpUrl, as the ws:// endpoint to attach to. On a server with several API keys it must not
 * reach this host's loopback: every Chrome of every key listens there, and attaching to another key's
 * Chrome would bypass ownership. An http(s):// URL is resolved here (its /json/version names the ws
 * endpoint), so a remote host cannot redirect the attachment to loopback. With one key there is no one
 * else's browser to reach, so local setups (`cdpUrl: ws://127.0.0.1:9222/…`) work.
 */
export async function clientCdpEndpoint(cdpUrl: string, multiTenant: boolean): Promise<string> {
  await refuseLoopback(cdpUrl, multiTenant);
  if (/^wss?:/i.test(cdpUrl)) return cdpUrl;
  let ws: unknown;
  try {
    // Relative to the URL's path: a proxied browser lives under a prefix (…/v1/connect/{id}/{token}).
    const base = cdpUrl.replace(/\/+$/, "").replace(/\/json\/version$/, "");
    const res = await fetch(`${base}/json/version`, { signal: AbortSignal.timeout(10_000), redirect: "error" });
    ws = ((await res.json()) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl;
  } catch {
    throw new HttpError(400, "browser.cdpUrl: no DevTools endpoint answered at its /json/version");
  }
  if (typeof ws !== "string" || !/^wss?:\/\//i.test(ws)) throw new HttpError(400, "browser.cdpUrl: its /json/version names no webSocketDebuggerUrl");
  await refuseLoopback(ws, multiTenant);
  return ws;
}

async function refuseLoopback(url: string, multiTenant: boolean): Promise<void> {
  if (!multiTenant) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new HttpError(400, `browser.cdpUrl: cannot resolve host "${host}"`);
  }
  if (addresses.some(isLoopback)) {
    throw new HttpError(400, "browser.cdpUrl: loopback addresses are refused on a server with several API keys (they reach the server's own browsers); start a browser session instead");
  }
}

function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  if (a === "::1" || a === "::" || a === "0.0.0.0") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return /^127\./.test(v4);
}
