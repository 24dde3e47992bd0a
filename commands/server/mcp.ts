/**
 * `svc mcp` (docs/mcp.md): svc as an MCP server, over stdio (one client, its browser ending with stdin) or `--http`
 * (loopback by default, every request carrying the bearer token; a browser per MCP session, or with
 * `--shared-browser` one Chrome, a context per session). stdout belongs to the protocol: logs go to stderr.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { checkToken, generateToken } from "../../src/mcp/index.js";
import { registerCleanup } from "../core/cleanup.js";
import { resolveCliModel } from "../core/model.js";
import type { GlobalOptions } from "../core/output.js";
import { launchDefaults } from "../core/runtime.js";
import type { MCP_OPTIONS } from "../registry/server.js";
import type { FlagsOf } from "../registry/types.js";
import { openSettings } from "../core/settings.js";
import { type SecretFlag, takeSecrets } from "../core/secret-flags.js";

export type McpFlags = FlagsOf<typeof MCP_OPTIONS>;

const TOKEN: SecretFlag = { flag: "--token", fileFlag: "--token-file", env: "SVC_MCP_TOKEN" };

/** `--token` or `--token-file` > SVC_MCP_TOKEN; undefined: one is generated. The warning is printed as it starts. */
async function bearerToken(flags: McpFlags): Promise<{ token: string | undefined; warning: string | undefined }> {
  const { values, warning } = await takeSecrets("mcp", [{ spec: TOKEN, args: flags.token !== undefined ? [flags.token] : undefined, file: flags.tokenFile }]);
  const env = process.env.SVC_MCP_TOKEN;
  const token = values[0] ? checkToken(values[0].values[0]!, values[0].from) : env ? checkToken(env, "SVC_MCP_TOKEN") : undefined;
  return { token, warning };
}

/** Runs until stdin closes (stdio) or `stop` fires (either mode); every browser is closed before it returns. */
export async function mcp(g: GlobalOptions, flags: McpFlags, stop: AbortSignal, version: string): Promise<void> {
  if (!flags.http && (flags.port !== undefined || flags.host !== undefined || flags.token !== undefined || flags.tokenFile !== undefined)) throw new ServiceInvalidArgumentError("--port, --host, --token and --token-file go with --http");
  const { token: givenToken, warning } = flags.http ? await bearerToken(flags) : { token: undefined, warning: undefined };
  const port = flags.http ? (flags.port ?? 3100) : 0;
  const idleMs = (flags.idleTimeout ?? 1800) * 1000;
  if (!flags.http && flags.maxSessions !== undefined) throw new ServiceInvalidArgumentError("--max-sessions goes with --http");
  const { maxSessions } = flags;
  if (!flags.http && flags.sharedBrowser) throw new ServiceInvalidArgumentError("--shared-browser goes with --http");
  if (!flags.sharedBrowser && flags.sharedContext) throw new ServiceInvalidArgumentError("--shared-context goes with --shared-browser");
  const { lib, options } = await mcpOptions(g, flags, version);
  if (!flags.http) {
    const stopped = new Promise<void>((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
    // A signal ends stdin's wait; the browser is closed by serveStdio either way.
    const serving = lib.serveStdio(options);
    await Promise.race([serving, stopped]);
    if (stop.aborted) process.stdin.destroy();
    await serving;
    return;
  }
  if (warning) process.stderr.write(warning);
  const token = givenToken ?? generateToken();
  const server = await lib.serveHttp({ ...options, port, ...(flags.host ? { host: flags.host } : {}), idleMs, token, ...(maxSessions !== undefined ? { maxSessions } : {}), sharedBrowser: flags.sharedBrowser === true, sharedContext: flags.sharedContext === true });
  const unregister = registerCleanup(() => server.close());
  // One line: the URL and how to authenticate (a generated token is shown; a given one is not echoed).
  process.stderr.write(`svc: MCP server at ${server.url} (${givenToken ? "bearer token as given" : `bearer token: ${token}`})\n`);
  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener("abort", () => resolve(), { once: true })));
  await server.close();
  unregister();
}

/** The server's options from the flags and settings (the caps checked), and the MCP module. */
export async function mcpOptions(g: GlobalOptions, flags: McpFlags, version: string) {
  const settings = await openSettings();
  const [{ defaults }, spec] = await Promise.all([launchDefaults(flags, {}, settings), resolveCliModel({ ...(flags.model !== undefined ? { model: flags.model } : {}) }, settings)]);
  const searchUrl = settings.effective("search.url").value;
  const [lib, web] = await Promise.all([import("../../src/mcp/index.js"), import("../../src/index.js")]);
  let caps: ReturnType<typeof lib.parseCaps>;
  try {
    caps = lib.parseCaps(flags.caps);
  } catch (e) {
    throw new ServiceInvalidArgumentError((e as Error).message);
  }
  const verbose = g.verbose ?? 0;
  const options = {
    version,
    allowFileUrls: flags.allowFileUrls === true,
    caps,
    service: {
      env: "LOCAL" as const,
      model: { ...spec.model },
      localBrowserLaunchOptions: {
        headless: defaults.headless,
        ...(defaults.executablePath ? { executablePath: defaults.executablePath } : {}),
        ...(defaults.viewport ? { viewport: defaults.viewport } : {}),
      },
      ...(flags.cacheDir ? { cacheDir: flags.cacheDir } : {}),
      ...(typeof searchUrl === "string" && searchUrl ? { searchUrl } : {}),
      verbose: Math.min(2, verbose) as 0 | 1 | 2,
      logger: (line: { category?: string; message: string; level?: number }) => {
        if ((line.level ?? 1) <= verbose) process.stderr.write(`svc${line.category ? `[${line.category}]` : ""}: ${line.message}\n`);
      },
    },
    search: typeof searchUrl === "string" && searchUrl ? web.searchBackendFor({ searchUrl }) : undefined,
  };
  return { lib, options };
}
