/**
 * Constructor options (docs/wire-formats.md "Construction options") with the older generation's names ("Older generation")
 * accepted as aliases, validated once, defaults applied once. Unknown keys are rejected: a typo in an
 * option name must not silently fall back to a default.
 */
import { z } from "zod";
import { DialogPolicyOptionSchema, toDialogPolicy, type DialogPolicy } from "./browser/dialogs.js";
import { LocalBrowserLaunchOptionsSchema, type LocalBrowserLaunchOptions } from "./browser/types.js";
import { ServiceEnvironmentError, ServiceInvalidArgumentError } from "./errors.js";
import { URL_POLICIES } from "./util/url-policy.js";
import { describeIssue } from "./util/zod.js";
import type { RefStore } from "./operations/snapshots.js";
import type { TabScope } from "./browser/tab-scope.js";

const ModelOptionSchema = z.union([
  z.string().min(1),
  z.looseObject({ modelName: z.string().min(1), apiKey: z.string().optional(), baseURL: z.string().optional() }),
]);

const LogLineSchema = z.object({
  category: z.string().optional(),
  message: z.string(),
  level: z.number().optional(),
  auxiliary: z.record(z.string(), z.unknown()).optional(),
});
export type LogLine = z.infer<typeof LogLineSchema>;

export const ServiceOptionsSchema = z.strictObject({
  env: z.enum(["LOCAL", "BROWSERBASE"]).optional(),
  apiKey: z.string().optional(),
  projectId: z.string().optional(),
  browserbaseSessionID: z.string().optional(),
  browserbaseSessionCreateParams: z.record(z.string(), z.unknown()).optional(),
  localBrowserLaunchOptions: LocalBrowserLaunchOptionsSchema.optional(),
  model: ModelOptionSchema.optional(),
  llmClient: z.unknown().optional(),
  systemPrompt: z.string().optional(),
  selfHeal: z.boolean().optional(),
  experimental: z.boolean().optional(),
  domSettleTimeout: z.number().int().min(0).optional(),
  cacheDir: z.string().min(1).optional(),
  keepAlive: z.boolean().optional(),
  serverCache: z.boolean().optional(),
  verbose: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  logInferenceToFile: z.boolean().optional(),
  disablePino: z.boolean().optional(),
  logger: z.custom<(line: LogLine) => void>((v) => typeof v === "function", { message: "expected a function" }).optional(),
  // svc: where the cloud lives (default: the platform's public origins; env SVC_API_URL, BROWSERBASE_BASE_URL).
  apiBaseURL: z.url({ protocol: /^https?$/ }).optional(),
  platformBaseURL: z.url({ protocol: /^https?$/ }).optional(),
  // svc: the agent's search backend (useSearch), a SearXNG instance (default: SVC_SEARCH_URL; else the platform in env BROWSERBASE).
  searchUrl: z.url({ protocol: /^https?$/ }).optional(),
  // svc: what goto opens — navigate, a new tab, the agent's goto tool, cached replays (src/util/url-policy.ts):
  // "any" (default), "web" (http:, https:, data:, about:blank: a shared server's tenants), "http" (http: and
  // https:, for a model a page can steer: svc mcp), "http+file".
  urlPolicy: z.enum(URL_POLICIES).optional(),
  // svc: where each page's refs are kept between processes ({ load(pageId), save(pageId, state) }; a CLI
  // session's file), so a ref printed by one command works in the next (see src/operations/snapshots.ts).
  refStore: z.custom<RefStore>((v) => typeof (v as RefStore | null)?.load === "function" && typeof (v as RefStore).save === "function", { message: "expected { load, save } functions" }).optional(),
  // svc: on a browser that is someone else's (a user's own Chrome, or one shared by several clients), drive only
  // the tabs in this scope ({ owns(targetId, openerId, browserContextId), adopt(targetId), browserContextId? };
  // src/browser/tab-scope.ts): the rest are left alone.
  tabScope: z.custom<TabScope>((v) => typeof (v as TabScope | null)?.owns === "function" && typeof (v as TabScope).adopt === "function", { message: "expected { owns, adopt } functions" }).optional(),
  // svc: how JavaScript dialogs are answered the moment they open: "dismiss" (default), "accept", or
  // { action, promptText } (what an accepted prompt() returns). beforeunload is always accepted.
  dialogPolicy: DialogPolicyOptionSchema.optional(),
  // svc: the model configs come from someone other than this process's owner (a shared server's tenants):
  // one that chooses its own endpoint is sent only its own key and must pass `allow` / connect through
  // `fetch`; one that chooses none goes to the operator's `baseURL` when given (see src/model/endpoint-policy.ts).
  modelEndpointPolicy: z
    .strictObject({
      allow: z.array(z.url({ protocol: /^https?$/ })).optional(),
      baseURL: z.url({ protocol: /^https?$/ }).optional(),
      fetch: z.custom<(input: string | URL | Request, init?: RequestInit) => Promise<Response>>((v) => typeof v === "function", { message: "expected a function" }).optional(),
    })
    .optional(),
  // Older generation (docs/wire-formats.md "Older generation").
  domSettleTimeoutMs: z.number().int().min(0).optional(),
  enableCaching: z.boolean().optional(),
  modelName: z.string().optional(),
  modelClientOptions: z.record(z.string(), z.unknown()).optional(),
  llmProvider: z.unknown().optional(),
  waitForCaptchaSolves: z.boolean().optional(),
  useAPI: z.boolean().optional(),
});
export type ServiceOptions = z.input<typeof ServiceOptionsSchema>;

export interface ResolvedOptions {
  env: "LOCAL" | "BROWSERBASE";
  launch: LocalBrowserLaunchOptions;
  domSettleTimeout: number;
  selfHeal: boolean;
  verbose: 0 | 1 | 2;
  keepAlive: boolean;
  cacheDir: string | undefined;
  logger: ((line: LogLine) => void) | undefined;
  dialogPolicy: DialogPolicy;
  raw: z.output<typeof ServiceOptionsSchema>;
}

const DEFAULT_DOM_SETTLE_TIMEOUT = 30_000;

/** Accepted for compatibility with the older generation (docs/wire-formats.md "Older generation") and without effect in svc. */
export const NO_EFFECT_OPTIONS = ["experimental", "waitForCaptchaSolves", "llmProvider"] as const;

/**
 * The log level when the `verbose` option is absent: `SVC_VERBOSE` (0, 1 or 2), else 1 for a `logger`
 * callback and 0 (errors and warnings only) on stderr, so that a script's stderr stays its own.
 */
function envVerbose(): 0 | 1 | 2 | undefined {
  const raw = process.env.SVC_VERBOSE?.trim();
  if (!raw) return undefined;
  if (raw === "0" || raw === "1" || raw === "2") return Number(raw) as 0 | 1 | 2;
  throw new ServiceInvalidArgumentError(`SVC_VERBOSE must be 0, 1 or 2, got "${raw.slice(0, 40)}"`);
}

export function resolveOptions(input: ServiceOptions = {}): ResolvedOptions {
  const env = (input as { env?: unknown } | null)?.env;
  if (env !== undefined && env !== "LOCAL" && env !== "BROWSERBASE") {
    throw new ServiceEnvironmentError(`env: expected "LOCAL" or "BROWSERBASE", got ${JSON.stringify(env)?.slice(0, 40) ?? typeof env}`);
  }
  const parsed = ServiceOptionsSchema.safeParse(input);
  if (!parsed.success) throw new ServiceInvalidArgumentError(describeIssue(parsed.error));
  const o = parsed.data;
  return {
    env: o.env ?? "LOCAL",
    launch: o.localBrowserLaunchOptions ?? {},
    domSettleTimeout: o.domSettleTimeout ?? o.domSettleTimeoutMs ?? DEFAULT_DOM_SETTLE_TIMEOUT,
    selfHeal: o.selfHeal ?? true,
    verbose: o.verbose ?? envVerbose() ?? (o.logger ? 1 : 0),
    keepAlive: o.keepAlive ?? false,
    cacheDir: o.cacheDir,
    logger: o.logger as ((line: LogLine) => void) | undefined,
    dialogPolicy: toDialogPolicy(o.dialogPolicy),
    raw: o,
  };
}
