/**
 * `svc agent --ask-human`: the person at this terminal is the one the agent asks (the askHuman tool). The
 * question goes to stderr (the live view shows it too); a line on stdin — Enter alone, or a reply then Enter —
 * answers it. stdin ended (nothing piped, or piped and used up) means nobody can answer: the tool fails at once
 * with that reason instead of waiting out the timeout.
 */
import { createInterface, type Interface } from "node:readline";
import type { AskHumanHandler } from "../src/index.js";

export function terminalAsker(options: { quiet: boolean }): { ask: AskHumanHandler; close(): void } {
  let lines: Interface | undefined;
  let ended = false;
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
  const ask: AskHumanHandler = ({ message, timeoutMs, signal }) => {
    open();
    if (!options.quiet) process.stderr.write(`svc: the agent asks you: ${message}\n     press Enter when done, or type a reply and Enter (waiting up to ${Math.round(timeoutMs / 1000)} s)\n`);
    if (ended) return Promise.reject(new Error("nobody can answer: stdin is closed"));
    return new Promise((resolve, reject) => {
      const answer = (line: string | undefined) => {
        signal.removeEventListener("abort", stop);
        if (line === undefined) reject(new Error("nobody can answer: stdin is closed"));
        else resolve({ reply: line });
      };
      const stop = () => waiting.delete(answer);
      signal.addEventListener("abort", stop, { once: true });
      waiting.add(answer);
    });
  };
  return { ask, close: () => lines?.close() };
}
