/**
 * A browser's recording (recorder.ts): rrweb's own recorder (npm `rrweb` 2.2.2, its UMD bundle) runs in every top-level
 * document of every tab, in an isolated world of the recorder's own (Page.addScriptToEvaluateOnNewDocument
 * with `worldName`), and hands each event to the recorder through a Runtime binding added for that world
 * only. Page JavaScript shares the DOM but not the world: it cannot see the recorder, call the binding or
 * forge events. What it records is rrweb's default (Meta, FullSnapshot, then DOM mutations, scrolls,
 * inputs, mouse moves and clicks); what the page does through patched APIs
 * in its own world (CSSOM insertRule, canvas drawing) is not seen. Every input's value is masked (`*` per
 * character, maskAllInputs): what is typed — a secret variable included — never reaches the recording. Cross-origin iframes are not recorded.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { CdpSession } from "./cdp/connection.js";

/** The isolated world's name (what Runtime.executionContextCreated reports for it). */
export const RECORDER_WORLD = "__svc_recorder";
const BINDING = "__svcRecordEvent";

let bundle: string | undefined;

/** rrweb's UMD bundle (it defines `rrweb` on the world's global), read once. */
function rrwebBundle(): string {
  if (bundle === undefined) {
    const main = createRequire(import.meta.url).resolve("rrweb");
    bundle = readFileSync(join(dirname(main), "rrweb.umd.min.cjs"), "utf8");
  }
  return bundle;
}

/** What runs in the isolated world of each document: rrweb in top-level documents only (it records same-origin iframes itself). */
function recorderScript(): string {
  // Isolated worlds have no customElements (null): rrweb asks it about every element it serialises inside a
  // try/catch, and a thrown TypeError per element made a snapshot ~7x slower (1.6 s for 6,000 elements).
  // The stub lives in this world's global only.
  return `if (!globalThis.customElements) Object.defineProperty(globalThis, "customElements", { value: { get: () => undefined }, configurable: true });
${rrwebBundle()}
;(() => {
  const send = globalThis[${JSON.stringify(BINDING)}];
  if (typeof send !== "function" || window !== window.top) return;
  try { delete globalThis[${JSON.stringify(BINDING)}]; } catch {}
  const start = () => rrweb.record({ maskAllInputs: true, emit: (event) => { try { send(JSON.stringify(event)); } catch {} } });
  if (document.documentElement) start();
  else document.addEventListener("readystatechange", start, { once: true });
})();`;
}

/** Installs the recorder in page `session` (before its first document when it waits for the debugger). */
export async function installRecorder(session: CdpSession): Promise<void> {
  await session.send("Runtime.addBinding", { name: BINDING, executionContextName: RECORDER_WORLD });
  await session.send("Page.addScriptToEvaluateOnNewDocument", { source: recorderScript(), worldName: RECORDER_WORLD, runImmediately: true });
}

/** The binding's name: a Runtime.bindingCalled of any other name is not the recorder's. */
export function isRecorderBinding(name: string): boolean {
  return name === BINDING;
}
