/**
 * `POST /v1/sessions` bodies (Browserbase's SessionCreateParams), validated once for the platform routes
 * and the session API's `browserbaseSessionCreateParams`.
 */
import { z } from "zod";
import { REGIONS } from "./wire.js";

/**
 * The platform's own limit on userMetadata: its JSON text (JSON.stringify) under 512 characters. Kept
 * here so every session object stays small while it is listed, running or ended.
 */
export const MAX_USER_METADATA_CHARS = 512;

const UserMetadataSchema = z.record(z.string(), z.unknown()).superRefine((m, ctx) => {
  let size: number;
  try {
    size = JSON.stringify(m).length;
  } catch {
    size = Infinity; // nested too deep to serialize (bodies are bounded before this; a caller's value may not be)
  }
  if (size > MAX_USER_METADATA_CHARS) ctx.addIssue({ code: "custom", message: `at most ${MAX_USER_METADATA_CHARS} characters as JSON (the platform's limit), got ${Number.isFinite(size) ? size : "more"}` });
});

/**
 * `POST /v1/sessions` (Browserbase's SessionCreateParams). Loose objects: the official SDK and Stagehand
 * send fields this server has no use for (proxies, extensionId, solveCaptchas …); those are accepted and
 * ignored, the ones it acts on are validated.
 */
export const SessionCreateParamsSchema = z.looseObject({
  projectId: z.string().optional(),
  keepAlive: z.boolean().optional(),
  /** Lifetime in seconds (the SDK's `api_timeout`, sent as `timeout`). */
  timeout: z.number().int().min(60).max(21600).optional(),
  /** One of the SDK's region names (platform/wire.ts says why every one is accepted on one host). */
  region: z.enum(REGIONS, { error: `expected one of ${REGIONS.join(", ")}` }).optional(),
  userMetadata: UserMetadataSchema.optional(),
  /** An uploaded extension to load (features/extensions.ts); also accepted as browserSettings.extensionId. */
  extensionId: z.string().min(1).max(100).optional(),
  browserSettings: z
    .looseObject({
      viewport: z
        .looseObject({
          width: z.number().int().min(1).max(10000).optional(),
          height: z.number().int().min(1).max(10000).optional(),
        })
        .optional(),
      ignoreCertificateErrors: z.boolean().optional(),
      /** The SDK's switches for the session's recording and log (GET …/recording, …/logs); both default true. */
      recordSession: z.boolean().optional(),
      logSession: z.boolean().optional(),
      /** A saved context (features/contexts.ts): its cookies and storage at the start; `persist` saves them back at the end. */
      context: z.looseObject({ id: z.string().min(1).max(100), persist: z.boolean().optional() }).optional(),
      extensionId: z.string().min(1).max(100).optional(),
    })
    .optional(),
});
export type SessionCreateParams = z.input<typeof SessionCreateParamsSchema>;
