/**
 * Reading the page: its outline with refs (snapshot) and its picture (screenshot). Refs are numbered and the last
 * outline and picture kept where each door keeps them (CapabilityContext.snapshot, .capture). On the CLI both may
 * first open a URL (on the live session, else a browser for this command only) and the picture goes to a file.
 */
import { z } from "zod";
import { SHARED_DESCRIPTIONS as D } from "./descriptions.js";
import { SCREENSHOT_MAX_SIZE, maxSizeProblem } from "../util/screenshot-limits.js";
import { withAnnotations } from "./annotate.js";
import { type Capability, capability, type Outcome, readOnly } from "./declare.js";
import { TAB } from "./element.js";

const ONE_SHOT_WHY = { door: "cli", why: "a command may open a URL on a browser of its own; an MCP client navigates its one browser" } as const;

/** A verb that opens a URL first (CliDoor.opensUrl): the URL, and the browser of its own it may run on. */
export const ONE_SHOT_INPUT = {
  url: z.string().min(1).max(8192).optional().describe("open this URL first: on the live session, else on a browser for this command only"),
  new: z.boolean().optional().describe("with a URL: a browser of its own for this command, even when a session is live"),
  headed: z.boolean().optional().describe("one-shot browser: show the window"),
  viewport: z.string().min(1).max(32).optional().describe("one-shot browser: viewport size"),
  executablePath: z.string().min(1).max(4096).optional().describe("one-shot browser: Chrome/Chromium to launch"),
};
export const ONE_SHOT_ONLY = { url: ONE_SHOT_WHY, new: ONE_SHOT_WHY, headed: ONE_SHOT_WHY, viewport: ONE_SHOT_WHY, executablePath: ONE_SHOT_WHY };
export const ONE_SHOT_FLAGS = { viewport: "--viewport <WxH>", executablePath: "--executable-path <path>" };

const POSITIVE = "expected a positive whole number";

export const snapshot = capability({
  name: "snapshot",
  description: "The page outline with refs (e3) for the other tools",
  input: {
    ...ONE_SHOT_INPUT,
    interactive: z.boolean().optional().describe(D.interactive),
    maxTokens: z.number({ error: POSITIVE }).int({ error: POSITIVE }).min(1, { error: POSITIVE }).max(1_000_000).optional().describe(D.maxTokens),
    selector: z.string().regex(/\S/, "is empty").max(10_000).optional().describe(D.snapshotSelector),
    delta: z.boolean().optional().describe(D.delta),
    from: z.string().min(1).max(40).optional().describe(D.from),
    tab: TAB,
  },
  only: ONE_SHOT_ONLY,
  mcp: { cap: "core", annotations: readOnly("Page outline") },
  cli: {
    verb: "snapshot",
    args: "[url]",
    description: "print the page's outline with refs (e1, e2, …) for the verbs: svc click e3; --json: {snapshot, refs}. With a URL: like extract URL, on the live session, else a browser for this command only",
    examples: ["svc snapshot -i", "svc snapshot https://example.com -i", "svc snapshot -i --delta", "svc --json snapshot --max-tokens 2000", "svc snapshot -i --from e120"],
    hosted: true,
    opensUrl: true,
    flags: { ...ONE_SHOT_FLAGS, interactive: "-i, --interactive", selector: "-s, --selector <selector>", from: "--from <ref>" },
  },
  run: async (ctx, i): Promise<Outcome> => {
    const page = await ctx.page(i.tab);
    const view = {
      ...(i.interactive ? { interactiveOnly: true } : {}),
      ...(i.maxTokens !== undefined ? { maxTokens: i.maxTokens } : {}),
      ...(i.selector ? { selector: i.selector } : {}),
      ...(i.delta ? { delta: true } : {}),
      ...(i.from !== undefined ? { from: i.from } : {}),
    };
    const snap = await ctx.snapshot(page, { ...view, shown: true });
    const shown = new Set(snap.shown);
    const refs: Record<string, { role: string; name: string; derived?: true }> = {};
    for (const t of snap.refs) if (shown.has(t.ref)) refs[t.ref] = { role: t.role, name: t.name, ...(t.derived ? { derived: true as const } : {}) };
    ctx.note({ method: "snapshot", parameters: view, result: { url: page.url(), refs: snap.refs.size, tokens: snap.tokens } });
    return { kind: "report", text: snap.text, data: { url: page.url(), snapshot: snap.text, refs, tokens: snap.tokens } };
  },
});

/** JPEG quality when --quality is not given. */
const DEFAULT_JPEG_QUALITY = 80;

/** The picture's format (`format`, else the output file's extension) and JPEG quality; a string says what is wrong. */
function pictureFormat(i: { format?: string | undefined; quality?: string | undefined; output?: string | undefined }): { type: "png" | "jpeg"; quality?: number } | string {
  const type = i.format === "jpeg" || (i.format === undefined && /\.jpe?g$/i.test(i.output ?? "")) ? "jpeg" : "png";
  if (i.quality === undefined) return type === "jpeg" ? { type, quality: DEFAULT_JPEG_QUALITY } : { type };
  if (type !== "jpeg") return "--quality applies to --format jpeg";
  const n = Number(i.quality);
  if (!i.quality.trim() || !Number.isInteger(n) || n < 0 || n > 100) return `--quality must be a whole number from 0 to 100, got "${i.quality}"`;
  return { type, quality: n };
}

/** `screenshot-20261124-180503-123.png`: sortable, no characters a shell or Windows would mind. */
function defaultScreenshotName(ext: string, now = new Date()): string {
  const iso = now.toISOString(); // 2026-11-24T18:05:03.123Z
  return `screenshot-${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${iso.slice(20, 23)}.${ext}`;
}

const FILE_ONLY = { door: "cli", why: "the CLI writes the picture to a file; the MCP tool returns it inline as a PNG" } as const;

export const screenshot = capability({
  name: "screenshot",
  description: "A PNG of the viewport (or the full page), with its scale",
  input: {
    ...ONE_SHOT_INPUT,
    output: z.string().min(1).max(4096).optional().describe("where to write the picture (default: screenshot-<time>.png or .jpeg in the current folder)"),
    fullPage: z.boolean().optional().describe(D.fullPage),
    format: z.enum(["png", "jpeg"]).optional().describe("png (default) or jpeg"),
    // A string: its text is checked with its own message (pictureFormat), before any work.
    quality: z.string().max(20).optional().describe("JPEG quality, 0–100 (default 80; only with --format jpeg)"),
    // The range is checked by `check` (one rule with the library's, maxSizeProblem), naming the door's field.
    maxSize: z.number({ error: `expected 0 (full size) or a whole number of pixels from ${SCREENSHOT_MAX_SIZE.min} to ${SCREENSHOT_MAX_SIZE.max}` }).optional().describe(D.screenshotMaxSize),
    ifChanged: z.boolean().optional().describe(D.ifChanged),
    annotate: z.boolean().optional().describe("draw each interactive ref of a fresh snapshot (svc snapshot -i) as a box labelled with its ref; the page is left as it was"),
    tab: TAB,
  },
  only: {
    ...ONE_SHOT_ONLY,
    output: FILE_ONLY,
    format: FILE_ONLY,
    quality: FILE_ONLY,
    annotate: { door: "cli", why: "a person checks which element a ref names; a model reads the refs from the snapshot tool" },
  },
  mcp: { cap: "core", annotations: readOnly("Screenshot") },
  cli: {
    verb: "screenshot",
    args: "[url]",
    description: "save a PNG (or JPEG) of the page and print its path; with a URL, on the current live session (a one-shot browser when there is none, or with --new)",
    examples: ["svc screenshot -o page.png", "svc screenshot https://example.com -o page.png --full-page", "svc screenshot --format jpeg --quality 60 -o page.jpeg", "svc screenshot --annotate -o refs.png", "svc screenshot --full-page --max-size 0 -o full.png", "svc screenshot --if-changed -o page.png"],
    hosted: true,
    opensUrl: true,
    flags: { ...ONE_SHOT_FLAGS, output: "-o, --output <file>", format: "--format <format>", quality: "--quality <n>", maxSize: "--max-size <px>" },
    output: {
      property: "output",
      fallback: (i) => {
        const f = pictureFormat(i as Parameters<typeof pictureFormat>[0]);
        return defaultScreenshotName(typeof f === "string" ? "png" : f.type);
      },
    },
  },
  check: (i, name) => {
    const format = pictureFormat(i);
    if (typeof format === "string") return format;
    return i.maxSize === undefined ? undefined : maxSizeProblem(i.maxSize, name("maxSize"));
  },
  run: async (ctx, i): Promise<Outcome> => {
    const page = await ctx.page(i.tab);
    const format = pictureFormat(i) as Exclude<ReturnType<typeof pictureFormat>, string>;
    const capture = () => ctx.capture(page, { fullPage: i.fullPage === true, ...format, ...(i.maxSize !== undefined ? { maxSize: i.maxSize } : {}), ifChanged: i.ifChanged === true });
    const shot = i.annotate ? await withAnnotations(ctx, page, capture) : { result: await capture() };
    const pic = shot.result;
    // With a file (the CLI) the text names it, as a script reads it; inline (MCP) the text is the picture's size.
    const file = i.output;
    if (pic.unchanged) return { kind: "report", text: file ? "unchanged" : "unchanged: the page looks as at this tab's last screenshot", data: { unchanged: true } };
    const refs = "drawn" in shot ? { annotated: shot.drawn, ...(shot.skipped.length ? { notDrawn: shot.skipped } : {}) } : {};
    const size = { width: pic.width, height: pic.height, scale: pic.scale };
    const text = !file
      ? `${pic.width}×${pic.height} px, scale ${pic.scale}: page px = image px / ${pic.scale}`
      : pic.scaled
        ? `${file}\nscaled to ${pic.width}×${pic.height} px, scale ${pic.scale} (page px = image px / ${pic.scale})`
        : file;
    return {
      kind: "report",
      text,
      data: { url: page.url(), path: file, format: format.type, bytes: pic.data.length, ...size, ...refs },
      image: { data: pic.data, mimeType: format.type === "jpeg" ? "image/jpeg" : "image/png" },
    };
  },
});

/** The capabilities that read the page. */
export const PAGE_CAPABILITIES: readonly Capability[] = [snapshot, screenshot] as readonly Capability[];
