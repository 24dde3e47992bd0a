/**
 * The `svc batch` progress bar at a terminal (Ink): each finished task printed once above the bar
 * (✓/✗, index, id, message), and the bar itself: done/total, failed, running, elapsed. Rendered without
 * raw mode, so Ctrl-C stays a SIGINT that main.ts handles.
 */
import { Box, Static, Text, render } from "ink";
import { formatMs, truncate } from "./agent-state.js";

export interface BatchLine {
  index: number;
  id?: string | number | undefined;
  success: boolean;
  message: string;
}

export interface BatchProgressState {
  total: number;
  running: number;
  finished: BatchLine[];
  startedAt: number;
  where: string;
}

const WIDTH = 30;

function Bar({ s, live }: { s: BatchProgressState; live: boolean }) {
  const done = s.finished.length;
  const failed = s.finished.filter((l) => !l.success).length;
  const filled = s.total ? Math.round((done / s.total) * WIDTH) : WIDTH;
  return (
    <Text>
      <Text color="green">{"█".repeat(filled)}</Text>
      <Text dimColor>{"░".repeat(WIDTH - filled)}</Text>
      {` ${done}/${s.total}`}
      {failed ? <Text color="red">{` · ${failed} failed`}</Text> : null}
      {live && s.running ? ` · ${s.running} running` : live && !done ? " · starting…" : ""}
      <Text dimColor>{` · ${formatMs(Date.now() - s.startedAt)} · ${s.where}`}</Text>
    </Text>
  );
}

function View({ s, live }: { s: BatchProgressState; live: boolean }) {
  return (
    <Box flexDirection="column">
      <Static items={s.finished}>
        {(l) => (
          <Text key={l.index}>
            <Text color={l.success ? "green" : "red"}>{l.success ? "✓" : "✗"}</Text>
            {` #${l.index}${l.id !== undefined ? ` (${String(l.id)})` : ""} `}
            <Text dimColor>{truncate(l.message, 100)}</Text>
          </Text>
        )}
      </Static>
      <Bar s={s} live={live} />
    </Box>
  );
}

export interface BatchProgress {
  started(): void;
  finished(line: BatchLine): void;
  close(): Promise<void>;
}

export function startBatchProgress(total: number, where: string): BatchProgress {
  const s: BatchProgressState = { total, running: 0, finished: [], startedAt: Date.now(), where };
  const instance = render(<View s={{ ...s }} live />, { exitOnCtrlC: false, patchConsole: false });
  const redraw = () => instance.rerender(<View s={{ ...s, finished: [...s.finished] }} live />);
  const clock = setInterval(redraw, 500);
  clock.unref();
  let closed = false;
  return {
    started() {
      s.running++;
      redraw();
    },
    finished(line) {
      s.running = Math.max(0, s.running - 1);
      s.finished.push(line);
      redraw();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(clock);
      instance.rerender(<View s={{ ...s, finished: [...s.finished] }} live={false} />);
      instance.unmount();
      await instance.waitUntilExit().catch(() => {});
    },
  };
}
