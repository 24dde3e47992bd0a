/**
 * The pages every tool reads, served over loopback HTTP: saved real pages (the folder SVC_SHARED_PAGES names;
 * by default a `shared/pages` folder beside the checkout, when the machine has one) and the
 * e2e fixture pages (test/support/server.ts, which also generates /large.html with ≥ 5,000 elements).
 */
import { createServer } from "node:http";
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { startFixtureServer } from "../test/support/server.js";

export const SHARED_PAGES = resolve(process.env.SVC_SHARED_PAGES ?? fileURLToPath(new URL("../../shared/pages", import.meta.url)));

export interface BenchPage {
  /** Short label for tables. */
  name: string;
  url: string;
  /** Hover target for act(action), the same string for svc and Stagehand (XPath; both accept `xpath=`). */
  hover: string;
  /** Playwright's spelling of the same element when it differs. */
  playwrightHover?: string;
  /** act(instruction) with a model (act-model.ts); pages without it are left out of that part. */
  act?: ActSpec;
}

/**
 * One unambiguous instruction per page and the element it means. The action never navigates (a click that
 * would submit a form to another page is a hover instead), so every iteration acts on the same page.
 */
export interface ActSpec {
  instruction: string;
  method: "click" | "hover";
  /** The element as Stagehand's tree prints it (`[0-14] button: Submit`): its role and name. */
  role: string;
  name: string;
  /** CSS selector of the element in the main document: both tools' chosen selectors must resolve to it. */
  css: string;
}

export interface PageSet {
  pages: BenchPage[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".gif": "image/gif",
  ".jpg": "image/jpeg",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
};

/** A static server for one folder on 127.0.0.1; unknown paths get a fast 404. */
async function serveDir(root: string): Promise<{ url(path: string): string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^[/\\]+/, "");
    const file = join(root, path);
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    readFile(file).then(
      (data) => res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(data),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}/${p.replace(/^\//, "")}`,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

const byId = (id: string): string => `xpath=//*[@id="${id}"]`;

/** airline-aa: "Submit search" and "Search" submit forms (to aa.com); the checkbox only toggles. */
const REFUNDABLE: ActSpec = { instruction: "click the Show refundable only checkbox", method: "click", role: "checkbox", name: "Show refundable only", css: "#refundable1" };

export async function startPages(): Promise<PageSet> {
  const shared = await serveDir(SHARED_PAGES);
  // airline-aa links its CSS/JS from the site root (/js/…, /content/…): served from the shared folder's root (as the
  // anchors' reference figures were) those 41 requests 404 and the page renders unstyled, every menu open; served
  // from its own folder it renders as the real site did. Both are measured.
  const airline = await serveDir(join(SHARED_PAGES, "airline-aa"));
  const fixtures = await startFixtureServer();
  const pages: BenchPage[] = [
    { name: "airline-aa/original.html", url: shared.url("airline-aa/original.html"), hover: byId("aa-search-button"), act: REFUNDABLE },
    { name: "airline-aa/original.html (its CSS/JS served)", url: airline.url("original.html"), hover: byId("aa-search-button"), act: REFUNDABLE },
    {
      name: "node-fs/index.html",
      url: shared.url("node-fs/index.html"),
      hover: byId("fsreadfilepath-options-callback"),
      // Clicking it would switch the theme; every link on the page navigates (or jumps to an anchor).
      act: { instruction: "hover over the Toggle dark mode/light mode button", method: "hover", role: "button", name: "Toggle dark mode/light mode", css: "#theme-toggle-btn" },
    },
    // The form's submit handler calls preventDefault: the click only writes the result.
    { name: "fixtures/forms.html", url: fixtures.url("forms.html"), hover: byId("submit"), act: { instruction: "click the Submit button", method: "click", role: "button", name: "Submit", css: "#submit" } },
    // The same-origin and the cross-origin (OOPIF) frame are both in the snapshot; the hover stays in the main frame.
    { name: "fixtures/iframes.html", url: fixtures.url("iframes.html"), hover: byId("main-button"), act: { instruction: "click the Main button", method: "click", role: "button", name: "Main button", css: "#main-button" } },
    { name: "fixtures/shadow.html", url: fixtures.url("shadow.html"), hover: byId("light-button"), act: { instruction: "click the Light button", method: "click", role: "button", name: "Light button", css: "#light-button" } },
    // Generated: 600 rows, ≥ 5,000 elements; the target is at the very bottom (scrolled into view first).
    { name: "fixtures/large.html (generated)", url: fixtures.url("large.html"), hover: byId("last-button"), act: { instruction: "click the Last button", method: "click", role: "button", name: "Last button", css: "#last-button" } },
  ];
  const only = process.env.BENCH_PAGES?.split(",").map((s) => s.trim()).filter(Boolean);
  return {
    pages: only ? pages.filter((p) => only.some((o) => p.name.includes(o))) : pages,
    close: async () => {
      await Promise.all([shared.close(), airline.close(), fixtures.close()]);
    },
  };
}
