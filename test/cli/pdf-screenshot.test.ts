/**
 * `svc pdf` and `svc screenshot` through the built `svc`, in the host and as a full process: a real PDF, written
 * atomically; JPEG at the quality asked, bad qualities refused first; annotated boxes in the annotation colour with
 * the DOM left as it was; the 2000 px bound on the long side with the real size and scale reported; and --if-changed.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodePng } from "../support/png.js";
import { collect, expectOneLine, hostAndFullModes, json, spawnSvc, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });

const MODES = hostAndFullModes(() => world.sb.env);

/** The page boxes of a PDF (`/MediaBox [0 0 W H]`), in points. */
function mediaBoxes(pdf: Buffer): Array<[number, number]> {
  return [...pdf.toString("latin1").matchAll(/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

const MAGENTA: [number, number, number] = [255, 0, 255];
const near = (a: readonly number[], b: readonly number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 8);

describe.each(MODES)("svc pdf and svc screenshot $mode", ({ run }) => {
  const ok = async (...args: string[]) => {
    // The commands under test must be the host's in the host mode; the others may be run either way.
    const r = await run(args, { key: ["console", "errors", "pdf", "screenshot"].includes(args.find((a) => !a.startsWith("-")) ?? "") });
    expect(r.stderr, args.join(" ")).toBe("");
    expect(r.code, args.join(" ")).toBe(0);
    return r.stdout;
  };
  const dir = () => mkdtempSync(join(world.sb.tmp, "out-"));

  it("prints the selected tab to an A4 PDF, or Letter landscape, leaving only the file", async () => {
    await ok("goto", world.server.url("forms.html"));
    const out = dir();
    const a4 = join(out, "page.pdf");
    const doc = json<{ path: string; bytes: number; format: string }>(await ok("--json", "pdf", a4));
    const pdf = readFileSync(a4);
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(doc).toMatchObject({ path: a4, bytes: pdf.length, format: "A4" });
    // A4 is 8.27 × 11.69 in: about 595 × 842 points, portrait.
    for (const [w, h] of mediaBoxes(pdf)) expect([Math.round(w), Math.round(h)]).toEqual([596, 842]);
    expect(mediaBoxes(pdf).length).toBeGreaterThan(0);

    const letter = join(out, "letter.pdf");
    expect((await ok("pdf", letter, "--format", "Letter", "--landscape")).trim()).toBe(letter);
    expect(mediaBoxes(readFileSync(letter))).toContainEqual([792, 612]);
    expect(readdirSync(out).sort()).toEqual(["letter.pdf", "page.pdf"]);
  });

  it("writes no file when the PDF cannot be written, and refuses a paper it does not know", async () => {
    const out = dir();
    const missing = join(out, "no-such-dir", "x.pdf");
    const r = await run(["pdf", missing]);
    expect(r.code).toBe(2);
    expect(expectOneLine(r.stderr)).toMatch(/cannot write .*x\.pdf/);
    const paper = await run(["pdf", join(out, "x.pdf"), "--format", "A3"]);
    expect(paper.code).not.toBe(0);
    expect(expectOneLine(paper.stderr)).toMatch(/--format: must be A4 or Letter, got "A3"/);
    expect(readdirSync(out)).toEqual([]);
  });

  it("saves a JPEG at the quality asked for, and refuses a quality outside 0–100 before any work", async () => {
    await ok("goto", world.server.url("forms.html"));
    const out = dir();
    const low = join(out, "low.jpeg");
    const high = join(out, "high.jpeg");
    expect(json<{ format: string }>(await ok("--json", "screenshot", "--format", "jpeg", "--quality", "5", "-o", low)).format).toBe("jpeg");
    await ok("screenshot", "--format", "jpeg", "--quality", "100", "-o", high);
    for (const f of [low, high]) expect(readFileSync(f).subarray(0, 3).toString("hex")).toBe("ffd8ff");
    // The same page at quality 5 is a far smaller file than at 100.
    expect(readFileSync(low).length * 2).toBeLessThan(readFileSync(high).length);
    for (const bad of ["101", "-1", "abc", "50.5", ""]) {
      const r = await run(["screenshot", "--format", "jpeg", "--quality", bad, "-o", join(out, "bad.jpeg")]);
      expect(r.code, bad).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(/--quality must be a whole number from 0 to 100/);
    }
    const png = await run(["screenshot", "--quality", "50", "-o", join(out, "bad.png")]);
    expect(png.code).toBe(2);
    expect(expectOneLine(png.stderr)).toMatch(/--quality applies to --format jpeg/);
    expect(readdirSync(out).sort()).toEqual(["high.jpeg", "low.jpeg"]);
  });

  it("--annotate boxes each interactive ref with its name and leaves the page's DOM as it was", async () => {
    await ok("goto", world.server.url("annotate.html"));
    const dom = async () => json<{ result: unknown }>(await ok("--json", "eval", "document.documentElement.outerHTML")).result;
    const before = await dom();
    const out = dir();
    const plain = join(out, "plain.png");
    const annotated = join(out, "annotated.png");
    await ok("screenshot", "-o", plain);
    const doc = json<{ annotated: string[] }>(await ok("--json", "screenshot", "--annotate", "--full-page", "-o", annotated));
    // The refs drawn are the ones `svc snapshot -i` prints for the two buttons.
    const snap = json<{ refs: Record<string, { role: string; name: string }> }>(await ok("--json", "snapshot", "-i"));
    const byName = (name: string) => Object.entries(snap.refs).find(([, t]) => t.name === name)?.[0];
    expect(doc.annotated.sort()).toEqual([byName("Top button"), byName("Low button")].sort());

    const p = decodePng(readFileSync(plain));
    const a = decodePng(readFileSync(annotated));
    expect(a.height).toBeGreaterThan(1500);
    // #top spans x 100–300, y 100–160: its box's left edge, and the label above its top-left corner.
    expect(near(a.rgb(100, 130), MAGENTA)).toBe(true);
    expect(near(a.rgb(101, 90), MAGENTA)).toBe(true);
    expect(near(p.rgb(100, 130), MAGENTA)).toBe(false);
    // #low (y 1500–1560) is below the viewport: drawn in document coordinates on the full page.
    expect(near(a.rgb(299, 1530), MAGENTA)).toBe(true);
    // Inside the box, the page as it is.
    expect(near(a.rgb(200, 105), p.rgb(200, 105))).toBe(true);

    expect(before).toMatch(/<button id="low">Low button<\/button>/);
    expect(await dom()).toBe(before);
    expect(json<{ result: unknown }>(await ok("--json", "eval", "document.querySelectorAll('svc-annotations').length")).result).toBe(0);
    expect(existsSync(annotated)).toBe(true);
  });
  it("--if-changed: a still page answers unchanged and writes nothing; after a change, a picture again", async () => {
    await ok("goto", world.server.url("forms.html"));
    const out = dir();
    const first = join(out, "first.png");
    expect((await ok("screenshot", "-o", first)).trim()).toBe(first);
    const same = json<Record<string, unknown>>(await ok("--json", "screenshot", "--if-changed", "-o", join(out, "same.png")));
    expect(same).toMatchObject({ unchanged: true });
    expect(same).not.toHaveProperty("path");
    expect((await ok("screenshot", "--if-changed", "-o", join(out, "same.png"))).trim()).toBe("unchanged");
    expect(readdirSync(out)).toEqual(["first.png"]);
    await ok("eval", "document.body.style.background = 'rgb(255, 0, 255)'");
    const changed = join(out, "changed.png");
    expect(json<{ path: string }>(await ok("--json", "screenshot", "--if-changed", "-o", changed)).path).toBe(changed);
    expect(near(decodePng(readFileSync(changed)).rgb(5, 5), MAGENTA)).toBe(true);
    // Other options are another picture: not compared with the last one's.
    expect(json<{ path: string }>(await ok("--json", "screenshot", "--if-changed", "--full-page", "-o", join(out, "full.png"))).path).toBe(join(out, "full.png"));
  });

  it("a full page 3000 px tall comes back 2000 px long with its scale; --max-size 0 is full size; a bad --max-size is refused before any work", async () => {
    await ok("goto", world.server.url("tall.html"));
    const width = json<{ result: number }>(await ok("--json", "eval", "document.documentElement.clientWidth")).result;
    const out = dir();
    const small = join(out, "small.png");
    const doc = json<{ path: string; width: number; height: number; scale: number }>(await ok("--json", "screenshot", "--full-page", "-o", small));
    const png = decodePng(readFileSync(small));
    expect(png.height).toBeLessThanOrEqual(2000);
    expect(png.height).toBeGreaterThanOrEqual(1999);
    expect(Math.abs(png.width - (width * 2) / 3)).toBeLessThanOrEqual(1);
    expect(doc).toMatchObject({ path: small, width: png.width, height: png.height });
    expect(doc.scale).toBeCloseTo(2 / 3, 3);
    // page px = image px / scale: the blue band's bottom edge (page y 100) is at image y ≈ 67.
    expect(png.rgb(10, Math.floor(97 * doc.scale))).toEqual([0, 0, 255]);
    expect(near(png.rgb(10, Math.ceil(103 * doc.scale)), [255, 255, 255])).toBe(true);
    const text = (await ok("screenshot", "--full-page", "-o", join(out, "text.png"))).trim().split("\n");
    expect(text[0]).toBe(join(out, "text.png"));
    expect(text[1]).toMatch(new RegExp(`^scaled to ${png.width}×${png.height} px, scale 0\\.6667 `));

    const full = join(out, "full.png");
    expect(json<{ scale: number }>(await ok("--json", "screenshot", "--full-page", "--max-size", "0", "-o", full)).scale).toBe(1);
    expect(decodePng(readFileSync(full))).toMatchObject({ width, height: 3000 });
    for (const bad of ["50", "10001", "abc", "-1", "1.5"]) {
      const r = await run(["screenshot", "--max-size", bad, "-o", join(out, "bad.png")]);
      expect(r.code, bad).toBe(2);
      expect(expectOneLine(r.stderr)).toMatch(/--max-size: expected 0 \(full size\) or a whole number of pixels from 100 to 10000/);
    }
    expect(readdirSync(out).sort()).toEqual(["full.png", "small.png", "text.png"]);
  });
});
