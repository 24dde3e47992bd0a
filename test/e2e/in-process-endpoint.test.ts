/**
 * A DevTools client in the process holding Chrome's pipe joins the mux in process, not by WebSocket to its own socket
 * (browser/cdp/local-endpoints.ts): shown by removing the socket file, which no WebSocket client could then reach. It
 * behaves as the WebSocket client: protocol errors, events, page endpoints, the browser's end.
 */
import { renameSync } from "node:fs";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../src/browser/launch.js";
import { CdpConnection, ProtocolError } from "../../src/browser/cdp/connection.js";
import { ServiceBrowserClosedError } from "../../src/errors.js";
import { unixWsEndpoint } from "../../src/util/devtools-socket.js";
import { CHROMIUM, waitFor } from "../support/browser.js";

let browser: LaunchedBrowser;

beforeAll(async () => {
  browser = await launchBrowser({ headless: true, executablePath: CHROMIUM }, { kind: "self" });
});
afterAll(() => browser?.close());

/** Runs `body` with the endpoint's socket file moved away, then puts it back. */
async function withoutSocketFile<T>(body: () => Promise<T>): Promise<T> {
  renameSync(browser.socketPath, `${browser.socketPath}.away`);
  try {
    return await body();
  } finally {
    renameSync(`${browser.socketPath}.away`, browser.socketPath);
  }
}

describe("a client in the process holding the pipe", () => {
  it("needs no socket: calls answer, errors are the protocol's, events arrive", async () => {
    await withoutSocketFile(async () => {
      const c = await CdpConnection.connect(browser.wsEndpoint);
      try {
        const version = await c.root.send("Browser.getVersion");
        expect(version.product).toMatch(/Chrom/);
        const bad = await c.root.send("Nope.nothing" as "Browser.getVersion").catch((e: unknown) => e);
        expect(bad).toBeInstanceOf(ProtocolError);
        expect((bad as Error).message).toMatch(/^Nope\.nothing: .*wasn't found/);
        const created: string[] = [];
        c.root.on("Target.targetCreated", (p) => void created.push(p.targetInfo.targetId));
        await c.root.send("Target.setDiscoverTargets", { discover: true });
        const { targetId } = await c.root.send("Target.createTarget", { url: "about:blank" });
        await waitFor(() => created.includes(targetId));
        // A page endpoint of the same process: its own root session on that tab.
        const page = await CdpConnection.connect(unixWsEndpoint(browser.socketPath, `/devtools/page/${targetId}`));
        const { result } = await page.root.send("Runtime.evaluate", { expression: "6 * 7" });
        expect(result.value).toBe(42);
        await page.close();
      } finally {
        await c.close();
      }
    });
  });

  it("a client in another process still reaches the endpoint through its socket", async () => {
    const script = `
      const { CdpConnection } = await import(${JSON.stringify(new URL("../../dist/src/browser/cdp/connection.js", import.meta.url).href)});
      const c = await CdpConnection.connect(${JSON.stringify(browser.wsEndpoint)});
      console.log((await c.root.send("Browser.getVersion")).product);
      await c.close();`;
    // Not spawnSync: this process serves that socket, so its event loop must keep running.
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(err).toBe("");
    expect(out).toMatch(/Chrom/);
    expect(code).toBe(0);
  });

  it("ends when Chrome ends: a call in flight rejects with the browser closed", async () => {
    const c = await CdpConnection.connect(browser.wsEndpoint);
    const { targetId } = await c.root.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await c.root.send("Target.attachToTarget", { targetId, flatten: true });
    const session = c.session(sessionId)!;
    const never = session.send("Runtime.evaluate", { expression: "new Promise(() => {})", awaitPromise: true }).catch((e: unknown) => e);
    await browser.close();
    expect(await never).toBeInstanceOf(ServiceBrowserClosedError);
    expect(c.closed).toBe(true);
  });
});
