/**
 * The public API (src/index.ts, what `import … from "svc-browser"` gives) is pinned here: a name added or taken
 * away is a deliberate diff of PUBLIC, not a side effect. What the faces need beyond it is src/internal.ts's;
 * the light part the CLI loads first is src/base.ts's.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/imports.js";

const PUBLIC = [
  "ACTION_METHODS", "Abortable", "ActOptions", "ActResult", "ActResultSchema", "Action", "ActionMethod",
  "ActionSchema", "Agent", "AgentAction", "AgentActionSchema", "AgentCache", "AgentCacheEntry", "AgentConfig",
  "AgentConfigSchema", "AgentExecuteOptions", "AgentExecuteOptionsSchema", "AgentExecuteRequest",
  "AgentExecuteRequestSchema", "AgentExecuteResponseSchema", "AgentMode", "AgentResult", "AgentResultData",
  "AgentResultSchema", "AgentStopReason", "AgentUsage", "AgentUsageSchema", "AskHumanHandler", "AskHumanRequest",
  "BackoffOptions", "BrowserContext", "BrowserRenderer", "BrowserbaseSessionNotFoundError", "CallOptions",
  "Capture", "CaptureOptions",
  "ContentFrameNotFoundError", "DEFAULT_ASK_HUMAN_TIMEOUT_MS", "DEFAULT_FETCH_MAX_BYTES",
  "DEFAULT_FETCH_MAX_REDIRECTS", "DEFAULT_FETCH_TIMEOUT_MS", "DEFAULT_MAX_STEPS", "DEFAULT_NUM_RESULTS",
  "DEFAULT_TOOL_TIMEOUT_MS", "ERROR_CODES", "FETCH_FORMATS", "FetchFormat", "FetchOptions", "FetchResult",
  "GotoOptions", "HistoryEntry", "InitResult", "InvalidAISDKModelFormatError", "LLMResponseError", "LaunchedBrowser",
  "LocalBrowserLaunchOptions", "LocalBrowserLaunchOptionsSchema", "Locator", "LogLevel", "LogLine",
  "MAX_NUM_RESULTS", "MAX_QUERY_LENGTH", "MODEL_ACTION_METHODS", "Masker", "Metrics",
  "MissingEnvironmentVariableError", "MissingLLMConfigurationError", "ModelConfigSchema", "ModelEndpointPolicy",
  "NavigationInfo", "OriginStorage", "Page", "PageWebMcp", "Picture", "PlatformFetchFormat", "PlatformFetchOptions", "PlatformFetchResult",
  "PlatformRequestOptions", "PlatformSearch", "RenderInBrowserOptions", "RenderOptions", "RenderedPage", "RunEvent",
  "RunEventListener", "RunEventType", "ScreenshotOptions", "SearchBackend", "SearchBackendConfig", "SearchRequest", "SearchRequestSchema",
  "SearchResponse", "SearchResponseSchema", "SearchResult", "SearxngOptions", "SearxngSearch", "SecretInput",
  "Secrets", "Service", "ServiceAbortedError", "ServiceApiError", "ServiceBrowserClosedError",
  "ServiceBrowserNotFoundError", "ServiceClickError", "ServiceDomProcessError", "ServiceElementNotFoundError",
  "ServiceEnvironmentError", "ServiceError", "ServiceErrorCode", "ServiceEvalError", "ServiceFetchError",
  "ServiceIframeError", "ServiceInitError", "ServiceInvalidArgumentError", "ServiceNavigationError",
  "ServiceNotInitializedError", "ServiceOptions", "ServiceOptionsSchema", "ServiceRateLimitError",
  "ServiceSearchNotConfiguredError", "ServiceSessionNotFoundError", "ServiceShadowRootMissingError",
  "ServiceStaleRefError", "ServiceStateError", "ServiceTargetCrashedError", "ServiceTimeoutError", "ServiceUnsupportedError", "SnapshotOptions",
  "StorageCookie", "StorageState", "UnsupportedModelError", "VariablesSchema", "Viewport", "WEBMCP_LIMITS", "WebMcpCallOptions",
  "WebMcpCallResult", "WebMcpTool", "WebMcpToolError", "WebMcpToolNotFoundError", "XPathResolutionError",
  "fetchPage", "isServiceError", "launchBrowser", "pageRenderer", "parseAction", "parseStorageState", "platform",
  "renderInBrowser", "searchBackendFor", "storageStateSchema", "validateSearch",
];

/** The names a module exports by name (`export { a, type B as C } from …`), as written. */
function exportedNames(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  sf.forEachChild((n) => {
    if (ts.isExportDeclaration(n) && n.exportClause && ts.isNamedExports(n.exportClause)) names.push(...n.exportClause.elements.map((e) => e.name.text));
  });
  return names;
}

/** The names the docs import from the package (`import { Service, type X } from "svc-browser"`). */
function documentedImports(text: string): string[] {
  return [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']svc-browser["']/g)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((n) => n.trim().replace(/^type\s+/, ""))
      .filter(Boolean),
  );
}

describe("the library's entry points", () => {
  it("src/index.ts exports exactly the public names (a new export is a deliberate line here)", () => {
    expect([...PUBLIC].sort()).toEqual(PUBLIC);
    expect([...exportedNames("src/index.ts")].sort()).toEqual(PUBLIC);
  });

  it("every name the README and docs import from the package is public", () => {
    const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const imported = docs.flatMap((f) => documentedImports(readFileSync(join(ROOT, f), "utf8")));
    expect(imported).toContain("Service");
    expect(imported.filter((n) => !PUBLIC.includes(n))).toEqual([]);
    // The reader sees `type` imports and several names.
    expect(documentedImports(`import { Service, type LogLine } from "svc-browser";`)).toEqual(["Service", "LogLine"]);
  });

  it("the reader finds every form of named export", () => {
    expect(exportedNames("src/internal.ts")).toContain("CdpConnection");
    expect(exportedNames("src/index.ts")).toContain("AgentResult"); // `AgentResultData as AgentResult`
    expect(exportedNames("src/base.ts")).toContain("routeBodyBytes"); // `bodyBytes as routeBodyBytes`
  });
});
