/**
 * Where a CLI command's time goes, for bench/agent-browser.ts and anyone asking: with SVC_PHASES=1 each phase prints
 * `svc[phase] <name> <ms since start>` on stderr; without it, nothing but one env lookup. In the session host the
 * origin is the client's, so times count from the start of the `svc` process the user ran.
 */
let origin = 0;

export function setPhaseOrigin(ms: number): void {
  origin = ms;
}

export function phase(name: string): void {
  if (process.env.SVC_PHASES) process.stderr.write(`svc[phase] ${name} ${(performance.now() - origin).toFixed(0)}\n`);
}
