/** What a session's pages emulate (`svc set`) and sessions on a Chrome svc did not start (`svc connect`). */
import { command, flag, value } from "./types.js";

export const EMULATION_COMMANDS = [
  command({
    name: "set",
    args: "[setting] [values...]",
    usage: "[device NAME | viewport WxH | geo LAT LON | media dark|light | offline on|off | headers JSON | useragent UA | timezone TZ | locale L] [--clear]",
    description: "emulate a device, viewport, location, color scheme, offline, headers, user agent, time zone or locale on every tab of the session (later tabs too); alone: show what is set; `svc set X off` unsets one",
    options: {
      clear: flag("--clear", "unset every setting (or, after a setting's name, that one)"),
      list: flag("--list", "list the devices `svc set device` knows"),
    },
    examples: [
      "svc set device 'iPhone 14'",
      "svc set viewport 390x844",
      "svc set geo 52.52 13.405",
      "svc set media dark",
      "svc set offline on",
      `svc set headers '{"X-Test":"1"}'`,
      "svc set timezone Europe/Berlin",
      "svc set locale de-DE",
      "svc set viewport off",
      "svc set --clear",
      "svc set",
    ],
    hosted: true,
    run: async (c, [setting, values], o) => (await import("../page/set.js")).set(c.globals, setting as string | undefined, (values as string[] | undefined) ?? [], o),
  }),
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
