/**
 * What the session API's events carry, said without HTTP: a log line as it goes over the wire, and an agent's
 * RunEvent as a log line. The session-API domain makes them; http/sse.ts only frames them as server-sent events.
 */
import type { LogLine, RunEvent } from "../index.js";

/**
 * A log line as it goes over the wire. Top-level `null` auxiliary values are dropped: Stagehand's loggers
 * destructure `{value, type}` out of every auxiliary entry and would throw on a null.
 */
export function wireLogLine(line: LogLine): LogLine {
  if (!line.auxiliary) return line;
  const auxiliary = Object.fromEntries(Object.entries(line.auxiliary).filter(([, v]) => v !== null && v !== undefined));
  const { auxiliary: _drop, ...rest } = line;
  return Object.keys(auxiliary).length ? { ...rest, auxiliary } : rest;
}

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One agent RunEvent as a log line; the event itself rides along for clients that rebuild the stream. */
export function agentEventLine(event: RunEvent): LogLine {
  return { category: "agent", message: clip(describeRunEvent(event)), level: 1, auxiliary: { event } };
}

function describeRunEvent(e: RunEvent): string {
  switch (e.type) {
    case "run_start":
      return `agent started (${e.mode}, ${e.model}, max ${e.maxSteps} steps): ${e.instruction}`;
    case "step_start":
      return `step ${e.step}`;
    case "tool_call":
      return `step ${e.step}: ${e.tool}${e.cached ? " (cached)" : ""}${e.reasoning ? ` — ${e.reasoning}` : ""}`;
    case "tool_result":
      return `step ${e.step}: ${e.tool} ${e.ok ? "ok" : "failed"} in ${e.timeMs} ms${e.summary ? `: ${e.summary}` : ""}`;
    case "page":
      return `step ${e.step}: page ${e.url}`;
    case "usage":
      return `step ${e.step}: ${e.operation} model call, ${e.input} in / ${e.output} out tokens`;
    case "log":
      return e.message;
    case "loop":
      return `step ${e.step}: ${e.message}`;
    case "ask_human":
      return `step ${e.step}: the agent asks a person: ${e.message}`;
    case "human_reply":
      return `step ${e.step}: ${e.answered ? `the person answered${e.reply ? `: ${e.reply}` : ""}` : "nobody answered in time"}`;
    case "run_end":
      return `agent finished (${e.result.completed ? "completed" : "not completed"}): ${e.result.message}`;
  }
}
