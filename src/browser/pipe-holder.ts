/**
 * Holding Chrome's --remote-debugging-pipe as a mux (pipe-mux.ts) served on a 0600 unix socket (pipe-endpoint.ts).
 * Chrome opens no TCP port and quits when the pipe's last holder is gone, so the holder decides how long Chrome
 * lives: the launching process itself (`{ kind: "self" }`: svc serve, a session host) or the detached reaper
 * (reaper.ts).
 */
import { join } from "node:path";
import type { Server } from "node:http";
import type { Readable, Writable } from "node:stream";
import { serveDevtoolsEndpoint } from "./pipe-endpoint.js";
import { PipeMux } from "./pipe-mux.js";

/** The endpoint's socket, in Chrome's run dir (0700). */
export const ENDPOINT_SOCKET = "devtools.sock";

export interface HeldPipe {
  socketPath: string;
  browserId: string;
  server: Server;
  /** Resolves when Chrome's side of the pipe closed (Chrome ended). */
  ended: Promise<void>;
}

/** Takes the pipe (`toChrome` is Chrome's fd 3, `fromChrome` its fd 4) and serves the endpoint in `runDir`. */
export async function holdPipe(options: { toChrome: Writable; fromChrome: Readable; runDir: string }): Promise<HeldPipe> {
  const { toChrome, fromChrome } = options;
  toChrome.on("error", () => {});
  const mux = new PipeMux((text) => void toChrome.write(`${text}\0`));
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const close = () => {
    mux.end();
    end();
  };
  fromChrome.on("data", (chunk: Buffer) => mux.feed(chunk));
  fromChrome.on("error", close);
  fromChrome.on("close", close);
  const { targetInfo } = (await mux.call("Target.getTargetInfo")) as { targetInfo: { targetId: string } };
  const socketPath = join(options.runDir, ENDPOINT_SOCKET);
  // Never a moment with a socket others could connect to (the run dir is 0700 as well).
  const previous = process.umask(0o077);
  let server: Server;
  try {
    server = await serveDevtoolsEndpoint({ socketPath, mux, browserId: targetInfo.targetId });
  } finally {
    process.umask(previous);
  }
  void ended.then(() => server.close());
  return { socketPath, browserId: targetInfo.targetId, server, ended };
}
