import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // A bound on a hang, not a measure: a loaded 2-core machine runs a Chrome-driving test several times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // e2e and CLI tests each launch Chrome; the CI machine has 2 cores, so at most 2 files at once.
    maxWorkers: 2,
  },
});
