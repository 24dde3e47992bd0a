/**
 * The address policy's refusal, raised where a connection is made (guarded-fetch.ts) and found again by
 * whoever reports it, through the cause chains undici and the SDKs wrap it in. No undici here: model and
 * fetch code ask for it without loading the guarded connector.
 */
export class RefusedAtConnectError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host} refused: ${reason}`);
    this.name = "RefusedAtConnectError";
  }
}

/** The refusal in `e` or its causes (matched by name, so a copy of this module from another bundle counts). */
export function refusalIn(e: unknown): RefusedAtConnectError | undefined {
  for (let c: unknown = e, i = 0; c && i < 6; c = (c as { cause?: unknown }).cause, i++) {
    if ((c as Error | undefined)?.name === "RefusedAtConnectError") return c as RefusedAtConnectError;
  }
  return undefined;
}
