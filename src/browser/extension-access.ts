/**
 * Turning off file:// access for an unpacked extension before any of its code runs: Chrome grants it to
 * `--load-extension` and only chrome://extensions' toggle removes it, by reloading the extension. So Chrome starts
 * with a code-less stub in its folder; this turns developer mode on and the stub's access off, lets the caller
 * restore the manifest, and reloads it (docs/isolation.md).
 */
import { CdpConnection } from "./cdp/connection.js";

export interface LoadedExtension {
  /** The id Chrome gave the extension. */
  id: string;
  name: string;
}

interface ExtensionInfo {
  id: string;
  name: string;
  path?: string;
  description?: string;
  state?: string;
  fileAccess?: { isEnabled?: boolean; isActive?: boolean };
}

const POLL_MS = 50;

/**
 * For the unpacked extension Chrome loaded from `dir` (holding a stub whose description is `stubMarker`):
 * `swap()` replaces the stub with the real extension, then Chrome reloads it with file access off.
 */
export async function loadWithoutFileAccess(wsEndpoint: string, dir: string, stubMarker: string, swap: () => void, timeoutMs = 10_000): Promise<LoadedExtension> {
  const deadline = Date.now() + timeoutMs;
  const connection = await CdpConnection.connect(wsEndpoint, { protocolTimeout: timeoutMs });
  let targetId: string | undefined;
  try {
    ({ targetId } = await connection.root.send("Target.createTarget", { url: "chrome://extensions/", background: true }));
    const { sessionId } = await connection.root.send("Target.attachToTarget", { targetId, flatten: true });
    const page = connection.session(sessionId);
    if (!page) throw new Error("chrome://extensions could not be attached");
    const evaluate = async <T>(expression: string): Promise<T> => {
      const r = await page.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
      if (r.exceptionDetails) throw new Error(`chrome://extensions: ${r.exceptionDetails.exception?.description?.split("\n")[0] ?? r.exceptionDetails.text}`);
      return r.result.value as T;
    };
    await until(deadline, "chrome://extensions did not load", async () => (await evaluate<string>("typeof chrome?.developerPrivate?.getExtensionsInfo")) === "function" || undefined);
    const list = () => evaluate<ExtensionInfo[]>("chrome.developerPrivate.getExtensionsInfo()");
    const stub = (await list()).find((x) => x.path === dir);
    if (!stub) throw new Error("Chrome did not load the extension's folder");
    await evaluate("chrome.developerPrivate.updateProfileConfiguration({ inDeveloperMode: true })");
    const id = JSON.stringify(stub.id);
    // Access off while the stub is loaded (Chrome reloads it); the setting stays with the extension's id.
    if (stub.fileAccess?.isActive !== false) {
      await evaluate(`chrome.developerPrivate.updateExtensionConfiguration({ extensionId: ${id}, fileAccess: false })`);
      await until(deadline, "Chrome did not turn the extension's file access off", async () => {
        const x = (await list()).find((e) => e.id === stub.id);
        return x?.state === "ENABLED" && x.fileAccess?.isActive === false ? x : undefined;
      });
    }
    swap();
    // The reload answers once the real extension loaded, or with Chrome's reason when it could not.
    const failure = await evaluate<{ error?: string } | null | undefined>(`chrome.developerPrivate.reload(${id}, { failQuietly: true, populateErrorForUnpacked: true })`);
    if (failure?.error) throw new Error(failure.error);
    const loaded = await until(deadline, "Chrome did not load the extension (its manifest or files may be invalid for this Chromium)", async () => {
      const x = (await list()).find((e) => e.id === stub.id);
      return x && x.description !== stubMarker && x.state === "ENABLED" ? x : undefined;
    });
    if (loaded.fileAccess?.isActive !== false) throw new Error("the extension kept its access to file:// URLs");
    return { id: loaded.id, name: loaded.name };
  } finally {
    if (targetId) await connection.root.send("Target.closeTarget", { targetId }).catch(() => {});
    await connection.close();
  }
}

/**
 * The id Chrome gave the unpacked extension it loaded from `dir` at startup (`--load-extension`), once it is
 * enabled; an error when Chrome did not load it (Chrome skips an extension it cannot load, silently).
 */
export async function loadedExtension(wsEndpoint: string, dir: string, timeoutMs = 5_000): Promise<LoadedExtension> {
  const deadline = Date.now() + timeoutMs;
  const connection = await CdpConnection.connect(wsEndpoint, { protocolTimeout: timeoutMs });
  try {
    return await until(deadline, "Chrome did not load the extension (its manifest or files may be invalid for this Chromium)", async () => {
      const { extensions } = await connection.root.send("Extensions.getExtensions");
      const x = extensions.find((e) => e.path === dir && e.enabled);
      return x ? { id: x.id, name: x.name } : undefined;
    });
  } finally {
    await connection.close();
  }
}

async function until<T>(deadline: number, failure: string, check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
