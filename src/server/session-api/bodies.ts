/**
 * Request bodies of the session API, built from the library's own schemas. Objects are loose where the wire format
 * leaves fields open: official clients send fields this server has no use for (useTouch, ignoreSelectors …); the
 * fields it acts on are validated.
 */
import { z } from "zod";
import { ActionSchema, type LocalBrowserLaunchOptions, LocalBrowserLaunchOptionsSchema, ModelConfigSchema, VariablesSchema } from "../../index.js";
import { type BrowserEmulation, BrowserEmulationSchema } from "../../internal.js";
import { ServiceInvalidArgumentError } from "../../index.js";

const timeout = z.number().positive().optional();
const frameId = z.string().min(1).nullable().optional();
const streamResponse = z.boolean().nullable().optional();

/**
 * Launch options a client may choose. `args` and `executablePath` decide what runs on the server
 * (`--renderer-cmd-prefix` runs any command), so they are the operator's and refused. Page settings are applied over
 * CDP (browser/emulation.ts); official keys that are the operator's or mean nothing here are ignored and named in the
 * start's `warnings`.
 */
const CLIENT_LAUNCH_OPTIONS = ["headless", "viewport", "devtools", "proxy", "ignoreHTTPSErrors"] as const;
const EMULATED = ["locale", "deviceScaleFactor", "hasTouch", "acceptDownloads"] as const;
const IGNORED: Record<string, string> = {
  port: "each session's Chrome gets its own port",
  userDataDir: "each session gets its own fresh profile",
  preserveUserDataDir: "a session's profile ends with it",
  ignoreDefaultArgs: "Chrome's arguments are the operator's",
  chromiumSandbox: "the sandbox is the operator's choice",
  cdpUrl: "use browser.cdpUrl to attach to a browser",
  cdpHeaders: "the server connects to its own browsers",
  connectTimeoutMs: "the server connects to its own browsers",
  downloadsPath: "accepted downloads go to the server's downloads folder",
  keepAlive: "use browserbaseSessionCreateParams.keepAlive",
};
const REFUSED = ["args", "executablePath"];

const ClientLaunchOptionsSchema = z
  .looseObject({
    ...LocalBrowserLaunchOptionsSchema.pick({ headless: true, viewport: true, devtools: true, proxy: true, ignoreHTTPSErrors: true }).shape,
    ...BrowserEmulationSchema.shape,
  })
  .superRefine((o, ctx) => {
    for (const key of Object.keys(o)) {
      if (REFUSED.includes(key)) ctx.addIssue({ code: "custom", path: [key], message: "not settable over HTTP (the server's operator sets it)" });
      else if (!(key in IGNORED) && !(CLIENT_LAUNCH_OPTIONS as readonly string[]).includes(key) && !(EMULATED as readonly string[]).includes(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `unknown launch option; settable: ${[...CLIENT_LAUNCH_OPTIONS, ...EMULATED].join(", ")}` });
      }
    }
  })
  .transform((o) => {
    const pick = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.filter((k) => (o as Record<string, unknown>)[k] !== undefined).map((k) => [k, (o as Record<string, unknown>)[k]]));
    return {
      launch: pick(CLIENT_LAUNCH_OPTIONS) as Pick<LocalBrowserLaunchOptions, (typeof CLIENT_LAUNCH_OPTIONS)[number]>,
      emulation: pick(EMULATED) as BrowserEmulation,
      warnings: Object.keys(o)
        .filter((k) => k in IGNORED)
        .map((k) => `browser.launchOptions.${k} is ignored: ${IGNORED[k]}`),
    };
  });
export type ClientLaunchOptions = z.output<typeof ClientLaunchOptionsSchema>;

/**
 * On a server that isolates its tenants, two of those are the operator's too: `proxy` would take the
 * browser's network path away from the egress policy (every tenant Chrome goes through the server's own
 * proxy), and `headless: false` would put the tenant's windows on the server's display, sharing its
 * clipboard with whoever sits there.
 */
export function refuseTenantLaunchOptions(options: ClientLaunchOptions | undefined, isolated: boolean): void {
  const launch = options?.launch;
  if (!isolated || !launch) return;
  if (launch.proxy !== undefined) throw new ServiceInvalidArgumentError("browser.launchOptions.proxy: not settable on a server that isolates its tenants (their browsers reach the network only through the server's egress policy)");
  if (launch.headless === false) throw new ServiceInvalidArgumentError("browser.launchOptions.headless: must stay true on a server that isolates its tenants (a headed browser shares the server's display and clipboard)");
}

/**
 * Isolated tenants never save files into the server's shared downloads folder: acceptDownloads becomes a warning and the
 * session's downloads stay denied. (A platform session's own CDP clients download into that session's folder instead:
 * the CDP filter points their setDownloadBehavior there, GET /v1/sessions/{id}/downloads.)
 */
export function tenantLaunchOptions(options: ClientLaunchOptions | undefined, isolated: boolean): ClientLaunchOptions | undefined {
  if (!isolated || options?.emulation.acceptDownloads !== true) return options;
  const warning = "browser.launchOptions.acceptDownloads is ignored: downloads are denied on a server that isolates its tenants";
  return { ...options, emulation: { ...options.emulation, acceptDownloads: false }, warnings: [...options.warnings, warning] };
}

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
