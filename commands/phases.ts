/**
 * Where a CLI command's time goes, for the benchmark (bench/agent-browser.ts) and anyone asking: with
 * SVC_PHASES=1 each phase prints one stderr line `svc[phase] <name> <ms since the process started>`.
 * Without it, nothing (one env lookup).
 */
const on = !!process.env.SVC_PHASES;

export function phase(name: string): void {
  if (on) process.stderr.write(`svc[phase] ${name} ${performance.now().toFixed(0)}\n`);
}
