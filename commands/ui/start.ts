/**
 * The `svc agent` view from the first moment: a plain first line at once while Ink and React load (0.3–0.8 s) and
 * Chrome starts, then the live view (./live.tsx) replaces it, fed what arrived meanwhile. While it is up, stderr goes
 * above it: a line written under a live frame made Ink's redraw leave a spinner line behind. No ink or react import
 * here: this is what `svc agent` loads first.
 */
import type { RunEvent } from "../../src/index.js";
import type { LiveView } from "./live.js";

export interface AgentScreen {
  onEvent(event: RunEvent): void;
  /** What happens before the first step. */
  status(text: string): void;
  /** A line above the live part (the session's live view URL). */
  note(line: string): void;
  /** The last frame (no spinner) and the terminal given back; stderr is written directly again. */
  close(): Promise<void>;
}

const ERASE_LINE = "\r\x1b[2K";

/** Routes process.stderr writes through `route` until the returned function is called. */
function divertStderr(route: (text: string) => void): () => void {
  const stderr = process.stderr;
  const original = stderr.write;
  let inside = false;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    // `route` ends in a real stderr write (Ink's own, or ours below): that one goes through.
    if (inside) return (original as (...a: unknown[]) => boolean).call(stderr, chunk, ...rest);
    inside = true;
    try {
      route(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    } finally {
      inside = false;
    }
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (done) process.nextTick(done);
    return true;
  };
  stderr.write = write as typeof stderr.write;
  return () => {
    if (stderr.write === (write as typeof stderr.write)) stderr.write = original;
  };
}

export function startAgentScreen(initialStatus = "starting…"): AgentScreen {
  let status = initialStatus;
  let view: LiveView | undefined;
  let closed = false;
  const pending: RunEvent[] = [];
  process.stdout.write(status);
  const restoreStderr = divertStderr((text) => {
    if (view) return view.writeAbove(text);
    // Before Ink: erase the first line (and a `^C` the terminal echoed on it), write, show it again.
    process.stdout.write(ERASE_LINE);
    process.stderr.write(text);
    if (!closed) process.stdout.write(status);
  });
  const loading = import("./live.js")
    .then((m) => {
      if (closed) return;
      process.stdout.write(ERASE_LINE);
      view = m.startAgentView(status);
      for (const e of pending.splice(0)) view.onEvent(e);
    })
    .catch(() => {
      // No live view (Ink failed to load): the first line stays, the result is still printed by the command.
    });
  return {
    onEvent(event) {
      if (view) view.onEvent(event);
      else if (!closed) pending.push(event);
    },
    status(text) {
      status = text;
      if (view) view.status(text);
      else if (!closed) process.stdout.write(ERASE_LINE + text);
    },
    note(line) {
      if (closed) return;
      if (view) view.writeAbove(`${line}\n`);
      else process.stdout.write(`${ERASE_LINE}${line}\n${status}`);
    },
    async close() {
      if (closed) return;
      // Events that came before Ink did are shown in the last frame; a run that failed before any event
      // (Chrome did not start) leaves no line behind for the error that follows.
      if (!view && pending.length) await loading;
      closed = true;
      if (view) await view.close();
      else process.stdout.write(ERASE_LINE);
      restoreStderr();
    },
  };
}
