/**
 * A vitest setup file, loaded only in runs of scripts/suite-cpu.ts (SVC_SUITE_CPU_LOG set): names the test file
 * this worker is about to run, in the log the sampler reads (worker pid → file and worker slot), and in SVC_TEST_FILE, which
 * every process the file starts inherits (a session host that detaches included).
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import { expect } from "vitest";

const log = process.env.SVC_SUITE_CPU_LOG;
if (log) {
  const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
  process.env.SVC_TEST_FILE = file;
  appendFileSync(log, `${process.pid} ${file} ${process.env.VITEST_POOL_ID ?? ""}\n`);
}
