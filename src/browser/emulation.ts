/**
 * Settings a browser keeps for every page (locale, scale factor, touch, downloads allowed), held over one CDP
 * connection as long as they should last: emulation overrides end with the DevTools session that set them. Every
 * page, open now or later, gets them before its first script runs (auto-attach, each new page waiting). OOPIFs keep
 * the browser's locale and scale.
 */
import { z } from "zod";
import { CdpConnection, type CdpSession } from "./cdp/connection.js";

export const BrowserEmulationSchema = z.strictObject({
  /** A BCP 47 language tag (`de-DE`). */
  locale: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "expected a language tag such as de-DE")
    .optional(),
  deviceScaleFactor: z.number().positive().max(10).optional(),
  hasTouch: z.boolean().optional(),
  /** true: downloads are saved in the held emulation's downloads folder; false: denied. */
  acceptDownloads: z.boolean().optional(),
});
export type BrowserEmulation = z.infer<typeof BrowserEmulationSchema>;

export interface HeldEmulation {
  /** Ends the connection: the page settings lapse (the browser usually ends with it). */
  close(): Promise<void>;
}

/** Whether `e` asks for anything (an empty one needs no connection). */
export function emulates(e: BrowserEmulation | undefined): e is BrowserEmulation {
  return !!e && Object.values(e).some((v) => v !== undefined);
}

/** Connects to the browser at `wsEndpoint` and applies `settings` until close(). `downloadsPath`: where accepted downloads go. */
export async function holdEmulation(wsEndpoint: string, settings: BrowserEmulation, downloadsPath?: string): Promise<HeldEmulation> {
  const connection = await CdpConnection.connect(wsEndpoint);
  const root = connection.root;
  try {
    if (settings.acceptDownloads === true && downloadsPath) await root.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloadsPath, eventsEnabled: true });
    else if (settings.acceptDownloads === false) await root.send("Browser.setDownloadBehavior", { behavior: "deny" });
    if (settings.locale !== undefined || settings.deviceScaleFactor !== undefined || settings.hasTouch !== undefined) {
      const { userAgent } = await root.send("Browser.getVersion");
      root.on("Target.attachedToTarget", ({ sessionId, targetInfo, waitingForDebugger }) => {
        const session = connection.session(sessionId);
        if (!session) return;
        const setup = targetInfo.type === "page" ? applyToPage(session, settings, userAgent) : Promise.resolve();
        // Whatever failed (a page closing meanwhile), the page must not stay paused.
        void setup.catch(() => {}).finally(() => {
          if (waitingForDebugger) session.send("Runtime.runIfWaitingForDebugger").catch(() => {});
        });
      });
      await root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    }
  } catch (e) {
    await connection.close();
    throw e;
  }
  return { close: () => connection.close() };
}

async function applyToPage(session: CdpSession, s: BrowserEmulation, userAgent: string): Promise<void> {
  const calls: Promise<unknown>[] = [];
  if (s.locale !== undefined) {
    calls.push(session.send("Emulation.setLocaleOverride", { locale: s.locale }));
    // navigator.language(s) and the Accept-Language header both follow the user-agent override's language.
    calls.push(session.send("Network.setUserAgentOverride", { userAgent, acceptLanguage: s.locale }));
  }
  // width/height 0: the window keeps its size; only the scale changes.
  if (s.deviceScaleFactor !== undefined) calls.push(session.send("Emulation.setDeviceMetricsOverride", { width: 0, height: 0, deviceScaleFactor: s.deviceScaleFactor, mobile: false }));
  if (s.hasTouch !== undefined) calls.push(session.send("Emulation.setTouchEmulationEnabled", { enabled: s.hasTouch, ...(s.hasTouch ? { maxTouchPoints: 5 } : {}) }));
  await Promise.all(calls);
}
