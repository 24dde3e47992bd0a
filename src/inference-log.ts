/**
 * `logInferenceToFile`: every prompt and reply, one JSON line each, in `svc-inference.jsonl` under the
 * working directory. Every record is masked by the session's secrets here (callers need not); API keys
 * never reach a prompt.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { redact } from "./log.js";
import type { Secrets } from "./util/secrets.js";

export class InferenceLog {
  readonly file: string;

  constructor(
    dir: string,
    private readonly secrets?: Secrets,
  ) {
    this.file = join(dir, "svc-inference.jsonl");
  }

  write(record: unknown): void {
    try {
      appendFileSync(this.file, JSON.stringify({ timestamp: new Date().toISOString(), ...(redact(this.secrets ? this.secrets.deep(record) : record) as object) }) + "\n", { mode: 0o600 });
    } catch {
      // logging must never fail the operation being logged
    }
  }
}
