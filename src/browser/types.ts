import { z } from "zod";

const ViewportSchema = z.strictObject({
  width: z.number().int().min(1).max(10000),
  height: z.number().int().min(1).max(10000),
});
export type Viewport = z.infer<typeof ViewportSchema>;

/** `localBrowserLaunchOptions` (docs/wire-formats.md "Construction options"). */
export const LocalBrowserLaunchOptionsSchema = z.strictObject({
  headless: z.boolean().optional(),
  executablePath: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  args: z.array(z.string()).optional(),
  ignoreDefaultArgs: z.union([z.boolean(), z.array(z.string())]).optional(),
  userDataDir: z.string().min(1).optional(),
  viewport: ViewportSchema.optional(),
  devtools: z.boolean().optional(),
  proxy: z
    .strictObject({
      server: z.string().min(1),
      bypass: z.string().optional(),
      username: z.string().optional(),
      password: z.string().optional(),
    })
    .optional(),
  ignoreHTTPSErrors: z.boolean().optional(),
  cdpUrl: z.string().min(1).optional(),
  /**
   * Where downloads are saved, under the names the pages suggest ("name (1).ext" rather than overwriting),
   * and recorded (browser/downloads.ts); the Service reports each to listeners and the agent. A launched
   * Chrome (svc's own profile) gets it as its download folder; with `cdpUrl`, the records go here and
   * the files where that browser saves them. Unset: a launched Chrome saves into its own run dir.
   */
  downloadsPath: z.string().min(1).optional(),
  /** Milliseconds any CDP call may wait for the browser's answer (default 180 000; 0: no limit). */
  protocolTimeout: z.number().int().min(0).optional(),
});
export type LocalBrowserLaunchOptions = z.infer<typeof LocalBrowserLaunchOptionsSchema>;

export type WaitUntil = "load" | "domcontentloaded" | "networkidle";
