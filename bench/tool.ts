/** What run.ts drives: one browser per tool, launched once and reused for every page and iteration. */

/** Flags every browser in the run gets (root needs --no-sandbox; the rest keep a closed network quiet). */
export const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
export const ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/**
 * One viewport for every tool (Stagehand's default). Left to their defaults they differ (svc 780×437 headless,
 * Stagehand 1288×711, Playwright 1280×720), and layout decides what is in the accessibility tree: node-fs
 * hides its sidebar of 60 module links below ~1024 px.
 */
export const VIEWPORT_JS = 'innerWidth + "×" + innerHeight';
export const VIEWPORT = { width: 1288, height: 711 };

export interface Tool {
  name: string;
  launch(): Promise<void>;
  goto(url: string): Promise<void>;
  /** Named snapshot operations; each returns the text a model would receive (null: not model text). */
  snapshots: Record<string, () => Promise<string | null>>;
  /** Deterministic hover by selector; throws unless the tool reports success. */
  hover?: (selector: string) => Promise<void>;
  /** `innerWidth×innerHeight` of the page, to record that every tool saw the same layout. */
  viewport(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Snapshots run first, on the page as loaded, in every browser; then the hovers. Interleaving them would
 * skew the reads: a hover scrolls its target into view, and Chromium's getFullAXTree on a long page costs
 * several times more once the page has been scrolled (node-fs: ~130 ms → ~700 ms), which the raw-CDP anchor,
 * which never hovers, would not pay.
 */
export type Phase = "snapshot" | "act";
