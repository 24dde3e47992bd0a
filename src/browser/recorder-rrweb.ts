/**
 * A browser's recording (recorder.ts): rrweb runs in every top-level document in an isolated world of its own and
 * reports over a binding added for that world only, so page JavaScript cannot see it or forge events. Every input's
 * value is masked (maskAllInputs): a typed secret never reaches the recording. Cross-origin iframes are not recorded.
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
