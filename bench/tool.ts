/** What run.ts drives: one browser per tool, launched once and reused for every page and iteration. */

/** Flags every browser in the run gets (root needs --no-sandbox; the rest keep a closed network quiet). */
export const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
export const ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface Tool {
  name: string;
  launch(): Promise<void>;
  goto(url: string): Promise<void>;
  /** Named snapshot operations; each returns the text a model would receive (null: not model text). */
  snapshots: Record<string, () => Promise<string | null>>;
  /** Deterministic hover by selector; throws unless the tool reports success. */
  hover?: (selector: string) => Promise<void>;
  close(): Promise<void>;
}
