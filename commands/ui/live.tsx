/**
 * Mounts the agent view on the terminal and feeds it RunEvents. Ink is rendered without raw mode (no
 * useInput), so Ctrl-C stays a real SIGINT that commands/main.ts turns into an abort and exit 130.
 * Loaded through ./start.ts, which shows the first line before Ink has loaded.
 */
import { render, useStderr } from "ink";
import type { RunEvent } from "../../src/index.js";
import { initialState, reduce } from "./agent-state.js";
import { AgentView } from "./agent-view.js";

export interface LiveView {
  onEvent(event: RunEvent): void;
  /** What happens before the first step (shown beside the spinner). */
  status(text: string): void;
  /**
   * Writes `text` to stderr above the live part (Ink erases the live part, writes, draws it again), so a
   * line printed meanwhile (`svc: interrupted`) does not shift the frame and leave a stale spinner line.
   */
  writeAbove(text: string): void;
  /** Render the last state once more, without a spinner, and give the terminal back. */
  close(): Promise<void>;
}

/** Hands out Ink's own stderr writer (it is only reachable from inside the tree). */
function StderrBridge({ onWrite }: { onWrite: (write: (data: string) => void) => void }) {
  onWrite(useStderr().write);
  return null;
}

export function startAgentView(initialStatus: string): LiveView {
  let state = initialState();
  let since = Date.now();
  const viewStart = since;
  let status = initialStatus;
  let closed = false;
  let above: ((data: string) => void) | undefined;
  // One tree shape from first frame to last: a different root would remount <Static> and print every step again.
  const tree = (final = false) => (
    <>
      <StderrBridge onWrite={(w) => (above = w)} />
      {final ? <AgentView state={state} status={status} live={false} final /> : <AgentView state={state} since={since} status={status} />}
    </>
  );
  const instance = render(tree(), { exitOnCtrlC: false, patchConsole: false });
  return {
    onEvent(event) {
      if (closed) return;
      state = reduce(state, event, Date.now() - viewStart);
      since = Date.now();
      instance.rerender(tree());
    },
    status(text) {
      if (closed) return;
      status = text;
      instance.rerender(tree());
    },
    writeAbove(text) {
      if (above && !closed) above(text);
      else process.stderr.write(text);
    },
    async close() {
      if (closed) return;
      closed = true;
      instance.rerender(tree(true));
      instance.unmount();
      await instance.waitUntilExit().catch(() => {});
    },
  };
}
