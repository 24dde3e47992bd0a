/**
 * What the session host (commands/host.ts) and its thin client (commands/host-client.ts) agree on: the
 * commands a host runs and the environment forwarded with each request. Node builtins only (the client loads
 * it on every command); the registry's `hosted: true` declarations are the source, a unit test keeps this
 * list equal to them. A subcommand is named by its path (`network requests`).
 */

/** The commands a host runs: they drive the session's page and never ask a model. */
export const HOSTED: ReadonlySet<string> = new Set([
  "snapshot", "click", "dblclick", "hover", "focus", "fill", "type", "press", "select", "check", "uncheck", "scroll", "drag", "upload",
  "get", "wait", "eval", "back", "forward", "reload", "tabs", "goto", "screenshot", "pdf", "console", "errors", "set", "is", "find", "scrollintoview", "keyboard", "mouse",
  "network route", "network unroute", "network routes", "trace start", "trace stop",
  "network requests", "network request", "har start", "har stop", "view", "webmcp list", "webmcp call",
]);

/** The environment a command may read besides SVC_*: sent with each request, applied by the host while it runs (the display and BROWSER: `svc view --open`). */
const FORWARDED = new Set(["NO_COLOR", "FORCE_COLOR", "COLUMNS", "CHROME_PATH", "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "TZ", "BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]);

/** Whether a host request may carry (and the host apply) this variable. */
export function isForwardedEnv(name: string): boolean {
  return name.startsWith("SVC_") || FORWARDED.has(name);
}
