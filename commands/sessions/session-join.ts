/**
 * `svc sessions start --browser ID`: a session with a host of its own on another live session's Chrome, in a
 * browser context of its own (or, `--shared-context`, the owner's default one). Ending it ends only its context;
 * ending the owner ends its Chrome, so `svc sessions end OWNER` ends its joiners first.
 */
import { ServiceInvalidArgumentError, ServiceSessionNotFoundError, type SessionRecord, findSession, isAlive, isCloud } from "../../src/base.js";
import type { HostLaunchSpec } from "../host/browser.js";
import type { CloudGlobals } from "../core/cloud.js";
import { launchDefaults, output, stateRoot } from "../core/runtime.js";
import { runHost } from "./session-launch.js";
import { claimName, prepareSession, type StartOptions } from "./sessions.js";
import { parseSetting, settingDef } from "../core/settings.js";

/** Flags that choose how a Chrome is launched: a joiner launches none. */
const LAUNCH_FLAGS = ["headed", "executablePath", "cloud", "timeout", "state", "profile", "proxy", "args", "userAgent", "ignoreHttpsErrors"] as const;

/** The live local session that owns the Chrome `ref` names (a joiner's owner, when `ref` is itself a joiner). */
async function ownerOf(ref: string, root: string): Promise<SessionRecord> {
  let r = findSession(ref, root);
  if (r && !isCloud(r) && r.joined !== undefined) r = findSession(r.joined, root);
  if (!r) throw new ServiceSessionNotFoundError(`--browser: no session "${ref}"`, { hint: "see `svc sessions list`" });
  if (isCloud(r) || r.attached !== undefined || r.browserContextId === undefined) {
    throw new ServiceInvalidArgumentError(`--browser: session ${r.id} is not on a Chrome svc launched here`, { hint: "join a session started with `svc sessions start`" });
  }
  if (!(await isAlive(r))) throw new ServiceSessionNotFoundError(`--browser: session ${r.id} is no longer running`, { hint: "see `svc sessions list`" });
  return r;
}

export async function joinSession(g: CloudGlobals, opts: StartOptions & { browser: string }): Promise<string> {
  const bad = LAUNCH_FLAGS.find((k) => opts[k] !== undefined && opts[k] !== false);
  if (bad) throw new ServiceInvalidArgumentError(`--${bad.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} does not go with --browser: the session joins a running Chrome`);
  const root = stateRoot();
  const owner = await ownerOf(opts.browser.trim().slice(0, 200), root);
  if (opts.name !== undefined) await claimName(opts.name, root);
  const idleFlag = opts.idleTimeout !== undefined ? parseSetting(settingDef("session.idleTimeoutMinutes"), opts.idleTimeout, "--idle-timeout") : undefined;
  const { value, defaults } = await launchDefaults({ ...(opts.viewport !== undefined ? { viewport: opts.viewport } : {}) }, { "session.idleTimeoutMinutes": idleFlag });
  const { pageViewport } = await import("../../src/internal.js");
  const viewport = pageViewport({ headless: owner.headless, ...(opts.viewport !== undefined ? { viewport: defaults.viewport } : owner.viewport ? { viewport: owner.viewport } : {}) });
  const { fields } = prepareSession(g, root, Number(value("session.idleTimeoutMinutes")));
  const shared = opts.sharedContext === true;
  const spec: HostLaunchSpec = {
    connect: { url: owner.wsEndpoint, join: { owner: owner.id, ownerHeartbeat: owner.heartbeatFile, sharedContext: shared, ...(viewport ? { viewport } : {}) } },
    // `attached`: like `svc connect`, the host is the session (its pid), and the Chrome is not its to end.
    record: { ...fields, ...(opts.name !== undefined ? { name: opts.name } : {}), headless: owner.headless, ...(viewport ? { viewport } : {}), attached: owner.wsEndpoint },
    ownerPid: process.pid,
  };
  const record = await runHost(spec, root);
  const ref = record.name ?? record.id;
  output(g).result({ session: record }, () => [
    `session ${record.id}${record.name !== undefined ? ` "${record.name}"` : ""} joined the Chrome of session ${owner.id} (${shared ? "its default context, with its tabs" : "a browser context of its own"}; ends after ${record.idleMs / 60_000} idle min; ending it leaves ${owner.id} running)`,
    `use it: svc goto URL --session ${ref} · end it: svc sessions end ${ref}`,
  ]);
  return record.id;
}
