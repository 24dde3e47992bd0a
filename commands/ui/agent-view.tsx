/**
 * The `svc agent` terminal view (Ink): the task, each finished step (✓/✗, tool, target, reasoning,
 * duration) printed once above the live part, and below it the step in progress with a spinner, the
 * current URL, tokens and elapsed time, and at the end the final answer. A pure function of
 * AgentViewState (see agent-state.ts); the driver re-renders it on every event.
 */
import { Box, Static, Text } from "ink";
import { useEffect, useState } from "react";
import { type AgentViewState, type StepView, formatMs, formatTokens, shownElapsedMs, truncate } from "./agent-state.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A clock for the live part: re-renders every `ms` while `active` (ink-spinner is not a dependency). */
function useTick(active: boolean, ms = 80): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((t) => t + 1), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return tick;
}

function Spinner({ tick }: { tick: number }) {
  return <Text color="cyan">{FRAMES[tick % FRAMES.length]}</Text>;
}

function StepLine({ s }: { s: StepView }) {
  const ok = s.status === "ok";
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={ok ? "green" : "red"}>{ok ? "✓" : "✗"}</Text> <Text bold>{`${s.step}. ${s.tool}`}</Text>
        {s.target ? ` ${s.target}` : ""}
        <Text dimColor>{`  ${formatMs(s.timeMs ?? 0)}${s.cached ? " (cached)" : ""}`}</Text>
      </Text>
      {s.reasoning ? <Text dimColor>{`   ${truncate(s.reasoning, 110)}`}</Text> : null}
      {!ok && s.result ? <Text color="red">{`   ${truncate(s.result, 110)}`}</Text> : null}
    </Box>
  );
}

type Item = { key: string; header: true } | { key: string; step: StepView };

export interface AgentViewProps {
  state: AgentViewState;
  /** Wall-clock time (Date.now()) at which `state.elapsedMs` was current; with it, elapsed time ticks. */
  since?: number;
  /** Animate the spinner and the clock (off for snapshots of a frame). */
  live?: boolean;
  /** The last frame, left on the terminal: no spinner, even when the run never ended (interrupted, failed). */
  final?: boolean;
  /** What happens before the first step (`starting Chrome…`, `attaching to session s1…`). */
  status?: string;
}

export function AgentView({ state, since, live = true, final = false, status = "starting…" }: AgentViewProps) {
  const running = state.result === undefined;
  const tick = useTick(live && running && !final);
  const elapsed = shownElapsedMs(state) + (running && live && since !== undefined ? Math.max(0, Date.now() - since) : 0);
  const items: Item[] = [...(state.instruction ? [{ key: "header", header: true as const }] : []), ...state.steps.map((s) => ({ key: `step-${s.step}`, step: s }))];
  const current = state.current;
  const r = state.result;
  return (
    <Box flexDirection="column">
      <Static items={items}>
        {(item) =>
          "header" in item ? (
            <Box key={item.key} flexDirection="column" marginBottom={1}>
              <Text>
                <Text bold color="cyan">Task: </Text>
                {state.instruction}
              </Text>
              {state.mode ? <Text dimColor>{`mode ${state.mode} · model ${state.model ?? "?"} · up to ${state.maxSteps ?? "?"} steps`}</Text> : null}
            </Box>
          ) : (
            <StepLine key={item.key} s={item.step} />
          )
        }
      </Static>
      {running && !final ? (
        <Text>
          <Spinner tick={tick} />{" "}
          {current === undefined ? (
            state.steps.length ? "working…" : status
          ) : current.call === undefined ? (
            `${current.step}. thinking…`
          ) : (
            <>
              <Text bold>{`${current.step}. ${current.call.tool}`}</Text>
              {current.call.target ? ` ${current.call.target}` : ""}
              <Text dimColor>{current.call.reasoning ? `  ${truncate(current.call.reasoning, 80)}` : ""}</Text>
            </>
          )}
        </Text>
      ) : null}
      {state.logs.map((l, i) => (
        <Text key={`log-${i}`} color="yellow">
          {truncate(l, 120)}
        </Text>
      ))}
      {/* The totals appear once: on the status line while running, on the result's line at the end. */}
      {r ? null : <Text dimColor>{`${state.url ? truncate(state.url, 70) : "(no page yet)"} · ${formatTokens(state.tokens)} · ${formatMs(elapsed)}`}</Text>}
      {r ? (
        <Box marginTop={1} flexDirection="column">
          <Text>
            <Text bold color={r.success ? "green" : r.completed ? "yellow" : "red"}>
              {r.success ? "✓ Done: " : r.completed ? "✗ Finished without success: " : "✗ Not completed: "}
            </Text>
            {r.message}
          </Text>
          <Text dimColor>{`${r.actions.length} step${r.actions.length === 1 ? "" : "s"} · ${formatTokens(state.tokens)} · ${formatMs(shownElapsedMs(state))}${state.url ? ` · ${truncate(state.url, 70)}` : ""}`}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
