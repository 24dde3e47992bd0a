/**
 * A CLI session's dialog keeper. Between two commands no svc process is attached to the session's Chrome,
 * and a JavaScript dialog that opens then (a late alert, a page that keeps asking confirm()) is Chrome's
 * own: no DevTools client can answer it later (Page.handleJavaScriptDialog says "No dialog is showing"),
 * and it blocks the page's renderer, so the next command hung while attaching. `svc sessions start`
 * therefore starts this small detached process: it stays attached to every page for the session's life,
 * leaves each dialog to a running command for a moment, answers it by the default policy if none did, and
 * records it in the session's history. It ends when Chrome does (the connection closes).
 *
 * It also answers with the session's `--dialog` policy and its stored answer (`svc dialog`, taken when a
 * dialog opens), and records the session's downloads (browser/downloads.ts): being attached for the whole
 * session, it sees a download finish after the command that started it has exited.
 *
 * Run as `node dialog-keeper.js '{"wsEndpoint": …, "logId": …, "root": …}'`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CdpConnection, DialogHandler, DownloadWatcher } from "../src/internal.js";
import { appendHistory, sessionDialogAnswer } from "../src/base.js";

interface KeeperSpec {
  wsEndpoint: string;
  /** The session's history log. */
  logId: string;
  root: string;
  /** The session's download folder. */
  downloadsDir?: string;
  /** The session's dialog policy (default dismiss). */
  dialog?: "accept" | "dismiss";
}

/** How long a running command has to answer a dialog itself. */
const YIELD_MS = 300;

/** How long `svc sessions start` waits for its keeper to be attached to every page. */
const READY_MS = 30_000;
const READY_LINE = "ready";

/**
 * Starts the keeper for a session's Chrome (detached; it outlives this command) and resolves once it is
 * attached to every page with dialogs watched: a dialog that opened before that, with no command attached,
 * could be answered by nobody. Rejects if the keeper ends or is not ready within READY_MS (the caller ends
 * the session). No-op when not built.
 */
export async function startDialogKeeper(spec: KeeperSpec): Promise<void> {
  const script = fileURLToPath(new URL("./dialog-keeper.js", import.meta.url));
  if (!existsSync(script)) return;
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let said = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        said += d;
        if (said.split("\n").includes(READY_LINE)) resolve();
      });
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`the session's dialog keeper ended before it was attached (exit ${code})`)));
      timer = setTimeout(() => reject(new Error(`the session's dialog keeper was not attached within ${READY_MS / 1000} s`)), READY_MS);
    });
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  } finally {
    clearTimeout(timer);
    child.stdout!.destroy();
    child.unref();
  }
}

async function keep(spec: KeeperSpec): Promise<void> {
  // Nothing else keeps this process alive: it ends when the connection does (Chrome exited).
  const connection = await CdpConnection.connect(spec.wsEndpoint);
  try {
    await watchAll(connection, spec);
  } catch (e) {
    await connection.close();
    throw e;
  }
  // The starter stops listening once it has read this (or gave up): a write to its closed pipe is no failure.
  process.stdout.on("error", () => {});
  process.stdout.write(`${READY_LINE}\n`);
}

/** Answers and records every page's dialogs, and records the session's downloads, from now on. */
async function watchAll(connection: CdpConnection, spec: KeeperSpec): Promise<void> {
  const dialogs = new DialogHandler(spec.dialog ? { action: spec.dialog } : undefined);
  const stored = sessionDialogAnswer(spec.logId, spec.root);
  dialogs.answerFrom(() => stored.take());
  dialogs.onDialog((d) => {
    const entry = { method: "dialog", parameters: { type: d.type, message: d.message, url: d.url }, result: { accepted: d.accepted, ...(d.promptText !== undefined ? { promptText: d.promptText } : {}), by: d.by }, timestamp: new Date().toISOString() };
    try {
      appendHistory(spec.logId, [entry], spec.root);
    } catch {
      // the history is a record, not a reason to stop answering dialogs
    }
  });
  const enabling: Promise<unknown>[] = [];
  connection.root.on("Target.attachedToTarget", (e) => {
    const session = connection.session(e.sessionId);
    if (!session || e.targetInfo.type !== "page") return;
    dialogs.watch(session, { yieldMs: YIELD_MS });
    enabling.push(session.send("Page.enable").catch(() => {}));
  });
  // Chrome reports the pages open now before it answers setAutoAttach.
  await connection.root.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  await Promise.all(enabling);
  if (spec.downloadsDir) await DownloadWatcher.start(connection.root, spec.downloadsDir).catch(() => {});
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // A keeper that could not attach ends (its connection closed): `sessions start` sees it end before "ready".
  keep(JSON.parse(process.argv[2] ?? "{}") as KeeperSpec).catch(() => {});
}
