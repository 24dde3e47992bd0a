/**
 * `svc view [--open]`: the session's live view, served by its host on 127.0.0.1 with a random per-session token
 * (host/view.ts); prints the URL and exits. `--open` opens it through a launch file the host wrote, so the token
 * never goes on the opener's command line, which every local user can read; failing to open is a warning.
 */
import { spawn } from "node:child_process";
import { ServiceInvalidArgumentError, ServiceStateError, isCloud, touchSession } from "../../src/base.js";
import type { ViewAsker } from "../core/ask-human.js";
import { askHostFor } from "../host/ask.js";
import type { GlobalOptions } from "../core/output.js";
import { output, stateRoot } from "../core/runtime.js";
import { resolveSession } from "../core/session-lookup.js";

/** How long the opener may take to say it failed (it usually hands the URL over and exits at once). */
const OPEN_WAIT_MS = 5000;

/** The host's `view` control: the view's URL (started first when `start`), and a launch file's path when `launch`. */
function askView(root: string, sessionId: string, control: { start: boolean; launch?: boolean }): Promise<{ url?: string; launch?: string }> {
  return askHostFor(root, sessionId, { control: "view", ...control }, { unreached: `session ${sessionId} has no live view`, refused: `session ${sessionId}'s host could not start its live view` });
}

/** The session's live view URL, started by its host when `start` (else undefined when it has none yet). */
export async function liveViewUrl(root: string, sessionId: string, start: boolean): Promise<string | undefined> {
  return (await askView(root, sessionId, { start })).url;
}

/** The session's live view URL, its host asked to start the view if it serves none yet; `launch`: also a launch file for it. */
async function startLiveView(root: string, sessionId: string, launch = false): Promise<{ url: string; launch?: string }> {
  const reply = await askView(root, sessionId, { start: true, ...(launch ? { launch } : {}) });
  if (reply.url === undefined || (launch && reply.launch === undefined)) throw new ServiceStateError(`session ${sessionId}'s host started no live view`);
  return { url: reply.url, ...(reply.launch !== undefined ? { launch: reply.launch } : {}) };
}

/** `svc agent --ask-human`'s way to ask in the session's live view (the host's `ask` control, withdrawn with `signal`). */
export function hostViewAsker(root: string, sessionId: string): ViewAsker {
  return {
    start: async () => (await startLiveView(root, sessionId)).url,
    async ask(message, timeoutMs, signal) {
      // The host ends the question at timeoutMs itself; the margin covers a slow answer.
      const control = { control: "ask", message: message.slice(0, 2000), timeoutMs: Math.max(1000, Math.min(3_600_000, timeoutMs)) };
      const r = await askHostFor<{ answered: boolean; reply?: string }>(root, sessionId, control, { unreached: `session ${sessionId}'s live view` }, { timeoutMs: timeoutMs + 10_000, signal });
      return r.answered ? { ...(typeof r.reply === "string" ? { reply: r.reply } : {}) } : undefined;
    },
  };
}

/** The command that opens a file in the default browser: $BROWSER, else the platform's opener. */
function opener(file: string): [string, string[]] {
  const browser = process.env.BROWSER?.trim();
  if (browser) return [browser, [file]];
  if (process.platform === "darwin") return ["open", [file]];
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""', file]];
  return ["xdg-open", [file]];
}

/** Opens `file` (a path: never a secret, it is on the opener's command line); resolves with why it failed, or undefined once the opener took it (exit 0, or still running). */
function openInBrowser(file: string): Promise<string | undefined> {
  const [cmd, args] = opener(file);
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd, args, { stdio: "ignore", detached: true });
    } catch (e) {
      return resolve(`${cmd}: ${(e as Error).message}`);
    }
    const timer = setTimeout(() => {
      child.unref();
      resolve(undefined);
    }, OPEN_WAIT_MS);
    child.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code === "ENOENT" ? `${cmd} is not installed` : `${cmd}: ${e.message}`);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : `${cmd} exited with ${code ?? signal}`);
    });
  });
}

export async function view(g: GlobalOptions, opts: { open?: boolean }): Promise<void> {
  const out = output(g);
  const root = stateRoot();
  const session = touchSession(await resolveSession(root, g.session), root);
  if (isCloud(session)) throw new ServiceInvalidArgumentError("svc view shows a local session; a cloud session's live view is the platform's (its debuggerFullscreenUrl)", { hint: "svc sessions start (local), or --session ID" });
  const { url, launch } = await startLiveView(root, session.id, opts.open === true);
  if (launch !== undefined) {
    const failed = await openInBrowser(launch);
    if (failed) process.stderr.write(`svc: warning: could not open a browser (${failed}); open the URL yourself\n`);
  }
  out.result({ session: session.id, url }, () => [url]);
}
