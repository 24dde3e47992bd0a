/**
 * The README and docs as a newcomer reads them: every ```sh block of README.md and of a docs page's "Quick start"
 * runs as printed in one sandbox with the built `svc`, each line exiting 0 (`one line reads: X` / `prints: X`
 * comments checked). Without a browser: tables of contents, links and anchors, prose lines ≤ 200 characters, the
 * Settings table, and exit codes equal to commands/EXIT_CODES.md's.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/store/settings-defs.js";
import { headings, links, proseLines, section, shLines, tableRows } from "../support/markdown.js";
import { BIN, ROOT, type RunResult, type Sandbox, assertBuilt, collect, sandbox, expectNoChrome } from "./helpers.js";

const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");
const DOCS = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
const PAGES = ["README.md", ...DOCS];

/** README's ```sh blocks, then each docs page's quick start's, as [where, line]. */
function runnableLines(): [string, string][] {
  const out: [string, string][] = shLines(read("README.md")).map((l) => ["README.md", l]);
  for (const page of DOCS) {
    const quick = section(read(page), "Quick start");
    if (quick) out.push(...shLines(quick).map((l): [string, string] => [page, l]));
  }
  return out;
}

describe("docs, as written", () => {
  it("README.md stays short (≤ 400 lines, none over 200 characters) and links to every docs page", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(400);
    for (const [i, line] of readme.split("\n").entries()) expect(line.length, `README.md:${i + 1}`).toBeLessThanOrEqual(200);
    for (const page of DOCS) expect(readme, page).toContain(`](${page})`);
  });

  it("each docs page starts with a table of contents linking each of its ## and ### headings", () => {
    for (const page of DOCS) {
      const md = read(page);
      const firstSection = md.search(/^## /m);
      const toc = md.slice(0, firstSection);
      for (const h of headings(md).filter((x) => x.depth === 2 || x.depth === 3)) expect(toc, `${page}: ${h.text}`).toContain(`](#${h.anchor})`);
    }
  });

  it("every relative link and anchor resolves; no prose line is over 200 characters", () => {
    for (const page of PAGES) {
      const md = read(page);
      for (const { target, line } of links(md)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split("#") as [string, string | undefined];
        const path = file ? resolve(dirname(join(ROOT, page)), file) : join(ROOT, page);
        expect(existsSync(path), `${page}:${line}: ${target}`).toBe(true);
        if (anchor && path.endsWith(".md")) expect(headings(readFileSync(path, "utf8")).map((h) => h.anchor), `${page}:${line}: ${target}`).toContain(anchor);
      }
      for (const { text, line } of proseLines(md)) expect(text.length, `${page}:${line} is ${text.length} characters`).toBeLessThanOrEqual(200);
    }
  });

  it("the README installs the package package.json names", () => {
    const name = (JSON.parse(read("package.json")) as { name: string }).name;
    expect(section(read("README.md"), "Install")).toContain(`npm install -g ${name}`);
    expect(read("README.md")).toContain(`import { Service } from "${name}";`);
  });

  it("the README's Settings table lists every setting with its environment variables", () => {
    const rows = tableRows(read("README.md"), "| key | environment | default | meaning |");
    expect(rows.map((r) => r[0])).toEqual(expect.arrayContaining(SETTINGS.map((s) => `\`${s.key}\``)));
    expect(rows).toHaveLength(SETTINGS.length);
    for (const s of SETTINGS) expect(rows.find((r) => r[0] === `\`${s.key}\``)![1], s.key).toBe(s.env.map((e) => `\`${e}\``).join(", "));
  });

  it("docs/cli.md's exit codes are commands/EXIT_CODES.md's, row for row", () => {
    const header = "| Exit | Meaning | Error codes |";
    const expected = tableRows(read("commands/EXIT_CODES.md"), header);
    expect(expected.length).toBeGreaterThan(10);
    expect(tableRows(read("docs/cli.md"), header)).toEqual(expected);
  });
  it("skills/svc/SKILL.md names exit codes as commands/EXIT_CODES.md has them", () => {
    const skill = read("skills/svc/SKILL.md");
    const table = tableRows(read("commands/EXIT_CODES.md"), "| Exit | Meaning | Error codes |");
    const codes = new Set(table.map((r) => r[0]));
    const named = [...(/otherwise ([\s\S]*?)\(every code/.exec(skill)?.[1] ?? "").matchAll(/\b(\d+) [a-z]/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(4);
    for (const n of named) expect(codes, `SKILL.md names exit ${n}`).toContain(n);
    expect(table.find((r) => r[2]!.includes("`STALE_REF`"))![0]).toBe("6");
    expect(skill).toContain("6 element problem (`STALE_REF`");
    expect(skill, "svc --help lists no exit codes").not.toContain("see `svc --help` for the codes");
  });
});

describe("docs, run as printed", () => {
  let sb: Sandbox;
  let bin: string;
  let work: string;
  beforeAll(() => {
    assertBuilt();
    sb = sandbox();
    // `svc` on PATH is the built bin, as after `npm install -g`; the lines run in a folder of their own.
    bin = mkdtempSync(join(tmpdir(), "svc-docs-bin-"));
    writeFileSync(join(bin, "svc"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "svc"), 0o755);
    work = sb.tmp;
  });
  afterAll(async () => {
    // A line that failed may have left the session it opened: end it before the sandbox goes.
    await run("svc sessions end --all");
    sb.cleanup();
    rmSync(bin, { recursive: true, force: true });
  });

  function run(line: string): Promise<RunResult> {
    const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH ?? ""}`, PWD: work };
    const child = spawn("sh", ["-c", line], { env, cwd: work, stdio: ["pipe", "pipe", "pipe"] });
    return collect(child, 60_000);
  }

  it("every README ```sh line and every docs quick-start line exits 0 and prints what its comment says", async () => {
    const all = runnableLines();
    expect(all.filter(([, l]) => /(^|\s)svc open /.test(l)).length, "the README opens a page").toBeGreaterThan(0);
    expect(all.filter(([, l]) => /\s#\s.*(one line reads|prints): /.test(l)).length, "the README says what some lines print").toBeGreaterThan(1);
    for (const [where, line] of all) {
      const r = await run(line);
      expect(r.code, `${where}: \`${line}\` exited ${r.code}: ${r.stderr}`).toBe(0);
      const oneLine = /\s#\s.*one line reads: (.+)$/.exec(line)?.[1]?.trim();
      if (oneLine) expect(r.stdout.split("\n").map((l) => l.trim()), `${where}: \`${line}\``).toContain(oneLine);
      const prints = /\s#\s.*prints: (.+)$/.exec(line)?.[1]?.trim();
      if (prints) expect(r.stdout.trim(), `${where}: \`${line}\``).toBe(prints);
    }
    expect(existsSync(join(work, "page.png"))).toBe(true);
    await expectNoChrome(sb.tmp);
  });
});
