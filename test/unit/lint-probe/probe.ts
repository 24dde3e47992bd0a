// test/unit/lint.test.ts lints its probes as this file: a project of its own (this folder's tsconfig), so the
// typed rules need not build the whole repository's program.
export {};
