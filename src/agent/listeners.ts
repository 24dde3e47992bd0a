import type { RunEvent, RunEventListener } from "../events.js";

/** The listeners of an agent's runs: `subscribe()` for the Agent interface, `emit()` for the run. */
export interface RunEventHub {
  /** Delivers in order, synchronously. */
  emit(event: RunEvent): void;
  subscribe(listener: RunEventListener): () => void;
}

export function runEventHub(): RunEventHub {
  const listeners = new Set<RunEventListener>();
  return {
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch {
          // a failing listener must not fail the run it watches
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
