/**
 * Comments stay short and about why (at most 400 characters each, decoration and indentation not counted), and none
 * cites a document outside the repository: a rule is written where it applies, or points to docs/, ARCHITECTURE.md or
 * a test.
 */
import { describe, expect, it } from "vitest";
import { COMMENTS, MAX, citesOutside, commentsOf, offends, tooLong } from "../support/comments.js";


describe("comments", () => {
  it("reads the comments of every file, a run of // lines as one", () => {
    expect(COMMENTS.length).toBeGreaterThan(1000);
    const src = ["const a = 1; // trailing", "// one", "// run", "", "// another", "/**", " * block", " */", "f();"].join("\n");
    expect(commentsOf("x.ts", src).map((c) => [c.line, c.text])).toEqual([
      [1, "trailing"],
      [2, "one run"],
      [5, "another"],
      [6, "block"],
    ]);
  });

  it("flags a comment of 401 characters and one citing an outside document, not one of 400", () => {
    const planted = (n: number) => commentsOf("x.ts", `/**\n * ${"a".repeat(n)}\n */\nexport const x = 1;\n`);
    expect(planted(MAX + 1).filter(offends)).toHaveLength(1);
    expect(planted(MAX).filter(offends)).toHaveLength(0);
    const run = commentsOf("x.ts", `// ${"b".repeat(200)}\n// ${"c".repeat(200)}\nf();\n`);
    expect(run.filter(tooLong)).toHaveLength(1);
    for (const cite of ["as the seed says", "see seed.md", "the user's specification", "the users spec", "../shared/spec"]) {
      expect(commentsOf("x.ts", `// ${cite}\nf();\n`).filter(citesOutside), cite).toHaveLength(1);
    }
  });

  it("no comment over 400 characters or citing a document outside the repository", () => {
    const report = COMMENTS.filter(offends).map((c) => `${c.file}:${c.line} ${c.text.length} chars${citesOutside(c) ? ", cites a document outside the repository" : ""}`);
    expect(report).toEqual([]);
  });
});
