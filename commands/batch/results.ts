/**
 * Where a batch's results go, in input order, each exactly once. Each result is appended to a journal beside the
 * output (`<out>.partial`, fsynced) as it finishes, so a crash loses nothing finished; ordered lines go out as soon
 * as every earlier task is in; at the end the output is written atomically in order and the journal removed. A
 * repeated index is ignored.
 */
import { closeSync, existsSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { writeOutputFile } from "../core/output-file.js";
import { SCHEMA_VERSION } from "../core/output.js";
import type { BatchResult } from "./run-task.js";

export class ResultSink {
  private readonly results = new Map<number, BatchResult>();
  private next = 0;
  private journal: number | undefined;
  readonly journalPath: string | undefined;

  constructor(
    readonly total: number,
    private readonly out: string | undefined,
    /** Called with each result in input order, as soon as it and every earlier one are in. */
    private readonly onOrdered: (r: BatchResult) => void = () => {},
  ) {
    this.journalPath = out !== undefined ? `${out}.partial` : undefined;
    if (this.journalPath !== undefined) {
      if (existsSync(this.journalPath)) {
        throw new ServiceInvalidArgumentError(`${this.journalPath} exists: the finished results of an interrupted batch are there`, { hint: "move it away (or delete it) before running the batch again" });
      }
      this.journal = openSync(this.journalPath, "wx", 0o644);
    }
  }

  get count(): number {
    return this.results.size;
  }

  has(index: number): boolean {
    return this.results.has(index);
  }

  /** Records a result; false when its index already had one. */
  add(result: BatchResult): boolean {
    if (this.results.has(result.index) || result.index < 0 || result.index >= this.total) return false;
    this.results.set(result.index, result);
    if (this.journal !== undefined) {
      writeSync(this.journal, `${JSON.stringify(result)}\n`);
      fsyncSync(this.journal);
    }
    while (this.results.has(this.next)) this.onOrdered(this.results.get(this.next++)!);
    return true;
  }

  /** Every result so far, in input order. */
  ordered(): BatchResult[] {
    return [...this.results.values()].sort((a, b) => a.index - b.index);
  }

  /**
   * Writes the output file (atomically, input order) and drops the journal: the lines `--json` prints on
   * stdout, `{"schemaVersion":1,"type":"result",…}` then the `summary` line.
   */
  finish(summary: Record<string, unknown>): void {
    this.close();
    if (this.out === undefined) return;
    const line = (doc: Record<string, unknown>) => `${JSON.stringify({ schemaVersion: SCHEMA_VERSION, ...doc })}\n`;
    writeOutputFile(this.out, [...this.ordered().map((r) => line({ type: "result", ...r })), line({ type: "summary", ...summary })].join(""));
    rmSync(this.journalPath!, { force: true });
  }

  /** Leaves the journal in place (an interrupted run). */
  close(): void {
    if (this.journal !== undefined) closeSync(this.journal);
    this.journal = undefined;
  }
}
