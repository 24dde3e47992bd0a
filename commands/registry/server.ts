/** The long-running commands (serve, mcp, worker) and batches: they start browsers of their own. */
import { CAPS } from "../../src/capabilities/declare.js";
import { LIMIT_FLAGS, SERVE_RANGES as R, limitHelp } from "../server/serve-limits.js";
import { type OptionDecl, attributeName, command, defaulted, flag, int, launchOptions, list, num, size, value } from "./types.js";

/** Per-key bounds of `svc serve` (downloads, Stagehand cache, extensions, Model Gateway): serve-limits.ts's table. */
const LIMITS: Readonly<Record<string, OptionDecl<number>>> = Object.fromEntries(
  LIMIT_FLAGS.map((l) => {
    const help = limitHelp(l);
    const decl = l.kind === "size" ? size(`${l.flag} <size>`, help) : l.kind === "count" ? int(`${l.flag} <n>`, help, { min: 1 }) : num(`${l.flag} <seconds>`, help, { above: 0, max: l.max!, unit: "seconds" });
    return [attributeName(l.flag), decl];
  }),
);

const BROWSERS = launchOptions({ headed: "show the browser windows", viewport: "viewport size of the browsers", executablePath: "Chrome/Chromium to launch" });

/** The flags of `svc mcp` (commands/server/mcp.ts). */
export const MCP_OPTIONS = {
  http: flag("--http", "streamable HTTP on /mcp instead of stdio"),
  port: int("--port <port>", "with --http: port to listen on (0: any free port; default 3100)", { min: 0, max: 65535 }),
  host: value("--host <host>", "with --http: interface to listen on (default 127.0.0.1)"),
  idleTimeout: int("--idle-timeout <seconds>", "with --http: end an MCP session after this long without a request (default 1800)", { min: 1, max: 24 * 3600 }),
  maxSessions: int("--max-sessions <n>", "with --http: MCP sessions (each with its browser) at once; past it, 429 TOO_MANY_SESSIONS (default 8)", { min: 1, max: 1000 }),
  sharedBrowser: flag("--shared-browser", "with --http: one Chrome for every MCP session (launched on first use, ended with the server), each session in a browser context of its own"),
  sharedContext: flag("--shared-context", "with --shared-browser: sessions work together in the default context (a client's initialize may still ask x-svc-context: own)"),
  token: value("--token <token>", "with --http: the bearer token every request must carry (default: SVC_MCP_TOKEN, else one generated and printed); other local users can read it in the command line: prefer SVC_MCP_TOKEN or --token-file"),
  tokenFile: value("--token-file <path>", "with --http: read the bearer token from this file (mode 0600; - reads stdin)"),
  allowFileUrls: flag("--allow-file-urls", "let navigate, tabs and the agent open file: URLs (default: http and https only)"),
  caps: value("--caps <list>", `tool sets beside the core (navigate, snapshot, verbs, wait, act/extract/observe…): ${CAPS.filter((c) => c !== "core").join(", ")}, or all`),
  model: value("--model <provider/model>", "model for act/extract/observe/agent (default: SVC_MODEL, config model)"),
  cacheDir: value("--cache-dir <dir>", "act/agent cache directory"),
  ...launchOptions({ headed: "show the browser window (default: headless)", viewport: "viewport, e.g. 1280x720", executablePath: "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)" }),
} as const;

export const SERVER_COMMANDS = [
  command({
    name: "serve",
    description: "serve the HTTP API (session API + platform API) on this machine until SIGINT/SIGTERM; every session is a Chrome here",
    options: {
      port: int("--port <port>", "port to listen on (0: any free port)", R.port, 3000),
      host: defaulted("--host <host>", "interface to listen on", "127.0.0.1"),
      apiKey: list("--api-key <key>", "a key clients must send as x-bb-api-key (repeatable; default: SVC_API_KEYS, config server.apiKeys); other local users can read it in the command line: prefer SVC_API_KEYS or --api-key-file"),
      apiKeyFile: value("--api-key-file <path>", "read the API keys from this file, one a line (mode 0600; - reads stdin)"),
      maxSessions: int("--max-sessions <n>", "browser sessions at once; past it, new ones wait in the queue or get 429 (default 8)", R.maxSessions),
      queue: int("--queue <n>", "session starts that may wait for a free slot; past it, 429 QUEUE_FULL (default 0)", R.maxQueued),
      queueTimeout: num("--queue-timeout <seconds>", "longest wait of a queued start; past it, 429 QUEUE_TIMEOUT (default 30)", R.queueTimeoutS),
      maxCpu: num("--max-cpu <percent>", "no new session while the machine's CPU is busier than this (percent of all cores)", R.maxCpu),
      maxMemory: size("--max-memory <size>", "no new session while svc serve and its Chromes hold more than this"),
      drainTimeout: num("--drain-timeout <seconds>", "on SIGTERM/SIGINT: how long requests in flight may finish before they are ended (default 5)", { ...R.shutdownGraceS, unit: "seconds" }),
      warmBrowsers: int("--warm-browsers <n>", "Chromes kept started and ready so a session starts at once (default 1)", R.warmBrowsers),
      sessionTimeout: int("--session-timeout <seconds>", "lifetime of a browser session that asks for none (default 3600)", R.sessionTimeoutS),
      idleTimeout: int("--idle-timeout <seconds>", "end an API session after this long without a request (default 900)", R.idleTimeoutS),
      bodyLimit: int("--body-limit <bytes>", "largest request body (default 10485760)", R.bodyLimitBytes),
      cacheDir: value("--cache-dir <dir>", "the server's act/agent cache (default: <state dir>/server-cache)"),
      dataDir: value("--data-dir <dir>", "the server's data, e.g. saved contexts (default: SVC_DATA_DIR, else <state dir>/server-data)"),
      dataKey: value("--data-key <secret>", "secret the server's data is encrypted with, ≥16 characters (default: SVC_DATA_KEY; with a Redis store derived from the cluster secret; else generated into <data dir>/data.key)"),
      dataKeyFile: value("--data-key-file <path>", "read --data-key from this file (mode 0600; - reads stdin)"),
      publicUrl: value("--public-url <url>", "the origin clients reach this server at, for connectUrl (default http://HOST:PORT)"),
      searchUrl: value("--search-url <url>", "SearXNG instance behind POST /v1/search (default: SVC_SEARCH_URL, config search.url; none: 501)"),
      isolate: flag("--isolate", "isolate tenants even with one API key (default: on with more than one key): browsers reach only the public web"),
      allowNet: list("--allow-net <host|cidr>", "an address isolated tenants may reach anyway: HOST, HOST:PORT, IP, IP:PORT, CIDR or .suffix (repeatable)"),
      modelEndpoints: list("--model-endpoints <url>", "a model endpoint (URL prefix) a request may choose as its baseURL (repeatable; default: any the address policy allows)"),
      // svc serve as a cluster
      store: value("--store <memory|redis://host:port>", "session store: memory (one server) or a Redis every replica shares (default: SVC_STORE, config server.store, else memory)"),
      storeFile: value("--store-file <path>", "read --store from this file, for a Redis URL with a password (mode 0600; - reads stdin)"),
      advertiseUrl: value("--advertise-url <url>", "with a Redis store: how other replicas reach this one (default: SVC_ADVERTISE_URL, else http://HOST:PORT)"),
      clusterSecret: value("--cluster-secret <secret>", "with a Redis store: secret shared by every replica, ≥16 characters (default: SVC_CLUSTER_SECRET, config server.clusterSecret)"),
      clusterSecretFile: value("--cluster-secret-file <path>", "read --cluster-secret from this file (mode 0600; - reads stdin)"),
      clusterLease: int("--cluster-lease <ms>", "with a Redis store: the lease a replica renews on its sessions (default 10000)", { min: 200, max: 15_000, unit: "milliseconds" }),
      clusterHeartbeat: int("--cluster-heartbeat <ms>", "with a Redis store: how often a replica renews its leases (default: a quarter of the lease)", { min: 50, max: 7_500, unit: "milliseconds" }),
      clusterGrace: int("--cluster-grace <ms>", "with a Redis store: a replica silent for lease + grace is taken for dead, its sessions answer 410 (default: the lease)", { min: 0, max: 60_000, unit: "milliseconds" }),
      ...launchOptions({ headed: "show the browsers' windows (default: headless)", viewport: "default viewport of the browsers, e.g. 1280x720", executablePath: "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)" }),
      ...LIMITS,
    },
    examples: ["svc serve --port 3000", "svc serve --api-key-file ~/.config/svc/api-keys"],
    serving: true,
    run: async (c, _a, o) => (await import("../server/serve.js")).serve(c.globals, o, c.stop),
  }),
  command({
    name: "mcp",
    args: "[call] [tool] [json]",
    usage: "[options] | call TOOL ['JSON']",
    description:
      "serve svc's browser tools to an MCP host (stdio; or --http): one browser per client, closed when the client goes. `svc mcp call TOOL 'JSON'` runs one tool once and prints its result, on the live session's browser (else a browser of its own)",
    argHelp: { call: "the word call: run one tool once", tool: "the tool's name (svc mcp call tools lists them)", json: "its arguments as a JSON object (default {})" },
    options: MCP_OPTIONS,
    examples: ["svc mcp", "svc mcp --caps tabs,forms,web", "svc mcp --http --port 3100 --caps all", `svc mcp call navigate '{"url": "https://example.com"}'`, "svc mcp call tools --caps all"],
    helpAfter: '\nIn an MCP host config: {"mcpServers": {"svc": {"command": "svc", "args": ["mcp"]}}}',
    serving: true,
    run: async (c, [call, tool, json], o) =>
      call === undefined ? (await import("../server/mcp.js")).mcp(c.globals, o, c.stop, c.version) : (await import("../server/mcp-call.js")).mcpCall(c.globals, o, call as string, tool as string | undefined, json as string | undefined, c.version),
  }),
  command({
    name: "batch",
    args: "[tasks.jsonl]",
    description: "run agent tasks (one JSON object per line: instruction, url, maxSteps, variables, model, output) on a local pool, or on BullMQ workers with --queue; results as JSON lines in input order; exit 11 when some task did not succeed",
    options: {
      concurrency: int("--concurrency <n>", "local pool: tasks (browsers) at once (default: CPUs, at most 4)", { min: 1 }),
      output: value("-o, --output <file>", "write the results (JSON lines, input order) to this file; print only the summary"),
      taskTimeout: int("--task-timeout <ms>", "wall time of a task that names no timeoutMs (default 300000)", { min: 1, unit: "milliseconds" }),
      queue: value("--queue <redis-url>", "enqueue the tasks on this Redis for `svc worker`s and collect their results"),
      queueKey: value("--queue-key <key>", "encrypt task variables for the queue with this key (default: SVC_QUEUE_KEY); required with variables"),
      attempts: int("--attempts <n>", "queue: tries per task when its browser crashes or its worker dies (default 3)", { min: 1 }),
      detach: flag("--detach", "queue: print the batch id and exit; collect later with --results"),
      results: value("--results <batchId>", "queue: collect the results of an earlier batch (waits for the missing ones)"),
      ...BROWSERS,
    },
    examples: ["svc batch tasks.jsonl --concurrency 4 -o results.jsonl", "svc batch tasks.jsonl --queue redis://10.0.0.5:6379 --detach"],
    jsonLines: true,
    run: async (c, [file], o) => (await import("../batch/command.js")).batch(c.globals, file as string | undefined, o),
  }),
  command({
    name: "worker",
    description: "take agent tasks of `svc batch --queue` from Redis and run them, until SIGINT/SIGTERM (running tasks finish first)",
    options: {
      queue: value("--queue <redis-url>", "the Redis the batches are queued on"),
      queueKey: value("--queue-key <key>", "the key task variables were encrypted with (default: SVC_QUEUE_KEY)"),
      concurrency: int("--concurrency <n>", "tasks (browsers) at once (default 1)", { min: 1 }),
      lockDuration: { ...int("--lock-duration <ms>", "how long a dead worker's task stays locked before another worker retries it (default 30000)", { min: 1, unit: "milliseconds" }), env: "SVC_WORKER_LOCK_MS" },
      drainTimeout: int("--drain-timeout <ms>", "on SIGTERM, how long running tasks may finish before they are aborted and retried elsewhere (default 60000)", { min: 1, unit: "milliseconds" }),
      name: value("--name <name>", "this worker's name in job records and its output (default HOST:PID)"),
      ...BROWSERS,
    },
    examples: ["svc worker --queue redis://10.0.0.5:6379 --concurrency 2"],
    jsonLines: true,
    serving: true,
    run: async (c, _a, o) => (await import("../batch/worker.js")).worker(c.globals, o, c.stop),
  }),
];
