import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e and CLI tests each launch Chrome; the CI machine has 2 cores, so at most 2 files at once.
    maxWorkers: 2,
  },
});
