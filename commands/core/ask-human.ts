/**
 * `svc agent --ask-human`: the person at this terminal answers the agent's questions, on stdin, or with Continue in
 * the live view when the host serves one; the first answer wins and the other is withdrawn. With stdin ended and no
 * view nobody can answer, so the tool fails at once with that reason instead of waiting out the timeout.
 */
import { createInterface, type Interface } from "node:readline";
import type { AskHumanHandler } from "../../src/index.js";

/** The session's live view as an asker: its URL (the view started if need be) and a question held there until answered. */
export interface ViewAsker {
  start(): Promise<string>;
  /** Resolves with the reply once a viewer pressed Continue, or undefined when the question timed out or was withdrawn. */
  ask(message: string, timeoutMs: number, signal: AbortSignal): Promise<{ reply?: string } | undefined>;
}

export function terminalAsker(options: { quiet: boolean; say?: (line: string) => void }): { ask: AskHumanHandler; close(): void; useView(view: ViewAsker): void } {
  let lines: Interface | undefined;
  let ended = false;
  let view: ViewAsker | undefined;
  const waiting = new Set<(line: string | undefined) => void>();
  const open = () => {
    if (lines) return;
    lines = createInterface({ input: process.stdin, terminal: false });
    lines.on("line", (line) => {
      const [first] = waiting;
      if (!first) return;
      waiting.delete(first);
      first(line);
    });
    lines.on("close", () => {
      ended = true;
      for (const w of waiting) w(undefined);
      waiting.clear();
    });
  };
  const ask: AskHumanHandler = async ({ message, timeoutMs, signal }) => {
    open();
    const url = view ? await view.start().catch(() => undefined) : undefined;
    if (!options.quiet) {
      const also = url ? `     or press Continue in the live view: ${url}\n` : "";
      process.stderr.write(`svc: the agent asks you: ${message}\n     press Enter when done, or type a reply and Enter (waiting up to ${Math.round(timeoutMs / 1000)} s)\n${also}`);
    } else if (url) options.say?.(`the agent's question is in the live view too (press Continue there): ${url}`);
    if (ended && !url) throw new Error("nobody can answer: stdin is closed");
    return new Promise((resolve, reject) => {
      let stdinOpen = !ended;
      const answer = (line: string | undefined) => {
        if (line !== undefined) return finish({ reply: line });
        stdinOpen = false;
        // stdin ended: the view may still answer; with none, nobody can.
        if (!url) finish(new Error("nobody can answer: stdin is closed"));
      };
      const finish = (r: { reply?: string } | Error) => {
        waiting.delete(answer);
        signal.removeEventListener("abort", stop);
        if (r instanceof Error) reject(r);
        else resolve(r);
      };
      const stop = () => waiting.delete(answer);
      signal.addEventListener("abort", stop, { once: true });
      if (stdinOpen) waiting.add(answer);
      if (url && view) {
        view.ask(message, timeoutMs, signal).then(
          (r) => {
            if (r) finish(r);
          },
          () => {
            if (!stdinOpen && !signal.aborted) finish(new Error("nobody can answer: stdin is closed and the live view did not take the question"));
          },
        );
      }
    });
  };
  return { ask, close: () => lines?.close(), useView: (v) => (view = v) };
}
