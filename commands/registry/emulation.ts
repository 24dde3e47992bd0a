/** Sessions on a Chrome svc did not start (`svc connect`); what a session's pages emulate (`svc set`) is a capability (src/capabilities/emulation.ts). */
import { command, flag, value } from "./types.js";

export const EMULATION_COMMANDS = [
  command({
    name: "connect",
    args: "[endpoint]",
    description: "a session on a Chrome svc did not start: a DevTools PORT on loopback, a ws(s):// URL, or --auto for your own running Chrome; ending the session leaves that Chrome running",
    options: {
      auto: flag("--auto", "your own running Chrome, found by its DevToolsActivePort (allow it at chrome://inspect/#remote-debugging, or start it with --remote-debugging-port=0); the session works in a window of its own and drives only its own tabs"),
      userDataDir: value("--user-data-dir <dir>", "with --auto: the Chrome profile folder to look in (default: Chrome's and Chromium's usual ones)"),
      allTabs: flag("--all-tabs", "with --auto: drive every tab of that Chrome, not only the session's own"),
      name: value("--name <name>", "a name to use wherever a session id is taken (--session NAME); unique among live sessions"),
      idleTimeout: value("--idle-timeout <minutes>", "end the session (not the Chrome) after this many idle minutes (default 60)"),
    },
    examples: ["svc connect 9222", "svc connect ws://127.0.0.1:9222/devtools/browser/UUID --name mine", "svc connect --auto", "svc connect --auto --user-data-dir ~/.config/chromium"],
    run: async (c, [endpoint], o) => (await import("../sessions/connect.js")).connectSession(c.globals, endpoint as string | undefined, o),
  }),
];
