/**
 * The environment the thin client (commands/host/client.ts) sends with each request to the session host and
 * the host applies while the command runs. Node builtins only: the client loads it on every command.
 */

/** The environment a command may read besides SVC_*: the display and BROWSER are for `svc view --open`. */
const FORWARDED = new Set(["NO_COLOR", "FORCE_COLOR", "COLUMNS", "CHROME_PATH", "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "TZ", "BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]);

/** Whether a host request may carry (and the host apply) this variable. */
export function isForwardedEnv(name: string): boolean {
  return name.startsWith("SVC_") || FORWARDED.has(name);
}
