/**
 * Mounts the agent view on the terminal and feeds it RunEvents. Ink is rendered without raw mode (no
 * useInput), so Ctrl-C stays a real SIGINT that commands/main.ts turns into an abort and exit 130.
 */
import { render } from "ink";
import type { RunEvent } from "../../src/events.js";
import { initialState, reduce } from "./agent-state.js";
import { AgentView } from "./agent-view.js";

export interface LiveView {
  onEvent(event: RunEvent): void;
  /** Render the last state once more and give the terminal back. */
  close(): Promise<void>;
}

export function startAgentView(): LiveView {
  let state = initialState();
  let since = Date.now();
  let closed = false;
  const instance = render(<AgentView state={state} since={since} />, { exitOnCtrlC: false, patchConsole: false });
  return {
    onEvent(event) {
      if (closed) return;
      state = reduce(state, event);
      since = Date.now();
      instance.rerender(<AgentView state={state} since={since} />);
    },
    async close() {
      if (closed) return;
      closed = true;
      instance.rerender(<AgentView state={state} live={false} />);
      instance.unmount();
      await instance.waitUntilExit().catch(() => {});
    },
  };
}
