/** Sessions, saved logins, settings and a session's records: `svc sessions|state|config …`, init, history, metrics. */
import { type GroupDecl, command, flag, value } from "./types.js";

export const SESSION_GROUPS: readonly GroupDecl[] = [
  { name: "sessions", description: "start, list, show and end persistent browser sessions" },
  { name: "state", description: "save a session's login (cookies, local and session storage) to a file, or load one" },
  { name: "config", description: "read and write stored settings (API keys, launch defaults)" },
];

export const SESSION_COMMANDS = [
  command({
    name: "sessions start",
    description: "launch a Chrome that outlives this command; later commands reattach to it",
    options: {
      headed: flag("--headed", "show the browser window (default: headless)"),
      idleTimeout: value("--idle-timeout <minutes>", "end the session after this many idle minutes (default 60)"),
      viewport: value("--viewport <WxH>", "viewport size, e.g. 1280x720"),
      executablePath: value("--executable-path <path>", "Chrome/Chromium to launch (default: CHROME_PATH or the installed one)"),
      cloud: flag("--cloud", "create the session on the cloud platform (also when --env / config `env` is BROWSERBASE)"),
      timeout: value("--timeout <seconds>", "cloud session: its lifetime (default: the platform's)"),
      name: value("--name <name>", "a name to use wherever a session id is taken (--session NAME); unique among live sessions"),
      state: value("--state <file>", "start signed in: apply cookies and storage saved by `svc state save`"),
      profile: value("--profile <dir>", "a persistent Chrome profile: cookies and storage outlive the session (created 0700 if missing; never deleted by svc; one live session at a time)"),
      proxy: value("--proxy <url>", "send the browser's traffic through this proxy: http|https|socks5://[user:pass@]host:port (the password is never stored or shown)"),
      args: value("--args <flags>", 'extra Chrome flags, e.g. "--lang=de --disable-gpu" (flags svc sets itself, such as --remote-debugging-port or --user-data-dir, are refused)'),
      userAgent: value("--user-agent <ua>", "the browser's user agent"),
      ignoreHttpsErrors: flag("--ignore-https-errors", "accept invalid TLS certificates (self-signed, expired)"),
    },
    examples: ["svc sessions start --name shop", "svc sessions start --state login.state --headed", "svc sessions start --downloads ./dl --dialog accept", "svc sessions start --profile ~/.svc-profile --proxy http://user:pass@proxy:8080"],
    run: async (c, _a, o) => (await import("../sessions.js")).start(c.globals, o),
  }),
  command({
    name: "sessions list",
    description: "list recorded sessions and whether each is alive",
    examples: ["svc sessions list", "svc --json sessions list"],
    run: async (c) => (await import("../sessions.js")).list(c.globals),
  }),
  command({
    name: "sessions show",
    args: "<id>",
    description: "show one session (also an ended one's metrics)",
    examples: ["svc sessions show 3f2a9c1e"],
    run: async (c, [id]) => (await import("../sessions.js")).show(c.globals, id as string),
  }),
  command({
    name: "sessions end",
    args: "[id]",
    description: "end a session: end its Chrome and delete its profile (a --profile dir is kept; a `svc connect` Chrome is left running; history and metrics are kept)",
    options: { all: flag("--all", "end every recorded session") },
    examples: ["svc sessions end", "svc sessions end --all"],
    run: async (c, [id], o) => (await import("../sessions.js")).end(c.globals, id as string | undefined, o),
  }),
  // Saved logins (commands/state.ts).
  command({
    name: "state save",
    args: "<file>",
    description: "write the session's cookies and the storage of its open origins to FILE (0600; encrypted when state.key is set)",
    options: { encrypt: flag("--encrypt", "refuse to write unless the file can be encrypted (state.key / SVC_STATE_KEY set)") },
    examples: ["svc state save login.state", "svc state save login.state --encrypt"],
    run: async (c, [file], o) => (await import("../state.js")).save(c.globals, file as string, o),
  }),
  command({
    name: "state load",
    args: "<file>",
    description: "apply a saved state to the session (cookies to the browser, storage through the active tab)",
    examples: ["svc state load login.state"],
    run: async (c, [file]) => (await import("../state.js")).load(c.globals, file as string),
  }),
  command({
    name: "history",
    description: "print a session's history with tokens and time per call (ended sessions too; --session default for one-shot runs)",
    options: { limit: value("--limit <n>", "only the last n entries") },
    examples: ["svc history --limit 10"],
    run: async (c, _a, o) => (await import("../history.js")).history(c.globals, o),
  }),
  command({
    name: "metrics",
    description: "print a session's tokens and inference time per operation, summed over its commands",
    examples: ["svc metrics", "svc --json metrics"],
    run: async (c) => (await import("../metrics.js")).metrics(c.globals),
  }),
  command({
    name: "config get",
    args: "<key>",
    description: "print the effective value (env > stored > default); secrets masked",
    examples: ["svc config get model"],
    run: async (c, [key]) => (await import("../config.js")).get(c.globals, key as string),
  }),
  command({
    name: "config set",
    args: "<key> <value>",
    description: "store a value",
    examples: ["svc config set model openai/gpt-4.1-mini"],
    run: async (c, [key, v]) => (await import("../config.js")).set(c.globals, key as string, v as string),
  }),
  command({
    name: "config unset",
    args: "<key>",
    description: "remove a stored value",
    examples: ["svc config unset model"],
    run: async (c, [key]) => (await import("../config.js")).unset(c.globals, key as string),
  }),
  command({
    name: "config list",
    description: "every known key with its effective value and where it comes from",
    examples: ["svc config list"],
    run: async (c) => (await import("../config.js")).list(c.globals),
  }),
  command({
    name: "config path",
    description: "print the config file's path",
    examples: ["svc config path"],
    run: async (c) => (await import("../config.js")).path(c.globals),
  }),
  command({
    name: "init",
    description: "interactively store model API keys and default launch options",
    examples: ["svc init"],
    run: async (c) => (await import("../init.js")).init(c.globals),
  }),
];
