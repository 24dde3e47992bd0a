import { defineConfig } from "vitest/config";

// scripts/suite-cpu.ts's runs name each worker's test file for its CPU sampler; other runs load nothing more.
const setupFiles = process.env.SVC_SUITE_CPU_LOG ? ["test/support/suite-cpu-tag.ts"] : [];

export default defineConfig({
  test: {
    // A bound on a hang, not a measure: a loaded 2-core machine runs a Chrome-driving test several times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // e2e and CLI tests each launch Chrome. On the 2-core CI machine 3 files at once fill the time one file
    // spends waiting on the page (a cover that must stay still, a default bound): vitest took 746 s with 4 %
    // of the CPU idle, against 792–797 s and 13–17 % idle with 2 (quiet, 2026-11-27).
    maxWorkers: 3,
    // The default forks pool. Worker threads were measured (2026-11-28): the 166 files that run in them took
    // 1,653 s of test time against 1,589 s in forks (module import the same), and the server's files cannot
    // (process.umask, which the pipe holder sets, is refused in a worker thread).
    projects: [
      {
        extends: true,
        // Unit tests share one module graph per worker (no per-file re-import: a third of the time they took);
        // none of them changes a module's state or the environment without putting it back.
        test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/unit/**/*.test.tsx"], isolate: false, setupFiles },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts", "test/cli/**/*.test.ts"],
          // One Chrome per worker slot, shared by the library files that do not test launching
          // (test/support/shared-chrome.ts; a file opts out with launchOwnChrome()).
          globalSetup: ["test/support/shared-chrome-setup.ts"],
          // Files share a worker's module graph too: no new process and no re-import of src/ and dist/ per
          // file (test/e2e/server-*: import 76 → 20 s, the run 177 → 155 s). A file's opt-outs
          // (spawnOnly, launchOwnChrome) end with it; src/ reads the environment per call, never at import.
          isolate: false,
          setupFiles,
        },
      },
    ],
  },
});
