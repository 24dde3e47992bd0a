/**
 * Running a command line inside a process that is not its own (the session host serving a client, a test
 * running the CLI in its worker): what it writes to stdout/stderr goes to a sink, and the standard streams
 * read as the real caller's terminal would, until the returned function puts everything back.
 */
type Write = typeof process.stdout.write;
type Stream = "stdin" | "stdout" | "stderr";

export interface Terminal {
  /** Whether each named stream reads as a terminal while the command runs; streams not named keep theirs. */
  isTTY: Partial<Record<Stream, boolean>>;
  /** stdout's width while the command runs (undefined: none, as for a pipe). Kept as it is when absent. */
  columns?: number | undefined;
}

/** Sends every write to stdout/stderr to `send` and sets the streams' terminal properties; returns what undoes it. */
export function redirectOutput(send: (stream: "out" | "err", text: string) => void, terminal: Terminal): () => void {
  const streams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr } as const;
  const saved = { out: process.stdout.write, err: process.stderr.write };
  const properties: Array<{ target: object; key: string; descriptor: PropertyDescriptor | undefined }> = [];
  const override = (target: object, key: string, value: unknown) => {
    properties.push({ target, key, descriptor: Object.getOwnPropertyDescriptor(target, key) });
    Object.defineProperty(target, key, { value, configurable: true, writable: true });
  };
  const sink = (stream: "out" | "err"): Write =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      send(stream, typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const callback = rest.find((x) => typeof x === "function") as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return true;
    }) as Write;
  process.stdout.write = sink("out");
  process.stderr.write = sink("err");
  for (const [name, isTTY] of Object.entries(terminal.isTTY)) override(streams[name as Stream], "isTTY", isTTY);
  if ("columns" in terminal) override(process.stdout, "columns", terminal.columns);
  return () => {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    for (const { target, key, descriptor } of properties.reverse()) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete (target as Record<string, unknown>)[key];
    }
  };
}
