/** The global flags: every command inherits them (commander's showGlobalOptions lists them in each --help). */
import { type OptionDecl, choice, flag, value } from "./types.js";

export const ENVS = ["LOCAL", "BROWSERBASE"] as const;

const env: OptionDecl<(typeof ENVS)[number]> = {
  flags: "--env <env>",
  description: "where one-shot browsers and new sessions run: LOCAL or BROWSERBASE (default: SVC_ENV, config `env`, LOCAL); given, a live session of the other kind is not used",
  kind: "value",
  parse: (raw) => {
    const env = ENVS.find((e) => e === raw.trim().toUpperCase());
    if (!env) throw new Error(`must be one of ${ENVS.join(", ")}`);
    return env;
  },
};

export const GLOBAL_OPTIONS = {
  json: flag("--json", "print one JSON document on stdout (with schemaVersion)"),
  verbose: choice("--verbose <level>", "0 errors only, 1 info, 2 debug (and stack traces)", ["0", "1", "2"]),
  session: value("--session <id>", "the session to use, by id or name (default: the most recently used live session)"),
  env,
  // Page-driving commands (downloads.ts, dialog.ts): where downloads go, how dialogs are answered.
  downloads: value("--downloads <dir>", "where a new session's (sessions start) or a one-shot browser's downloads go (default <state>/downloads/<session id>)"),
  dialog: choice("--dialog <answer>", "answer JavaScript dialogs (alert/confirm/prompt) with accept or dismiss (default: the session's, else dismiss)", ["accept", "dismiss"]),
} as const;
