/**
 * Where a CLI command's time goes, for the benchmark (bench/agent-browser.ts) and anyone asking: with
 * SVC_PHASES=1 each phase prints one stderr line `svc[phase] <name> <ms since the process started>`.
 * Without it, nothing (one env lookup). In the session host (commands/host.ts) the clock is the client's:
 * the host sets the origin so that times still count from the start of the `svc` process the user ran.
 */
let origin = 0;

export function setPhaseOrigin(ms: number): void {
  origin = ms;
}

export function phase(name: string): void {
  if (process.env.SVC_PHASES) process.stderr.write(`svc[phase] ${name} ${(performance.now() - origin).toFixed(0)}\n`);
}
