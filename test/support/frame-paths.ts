/** Where an element of a fixture page is, as fixtures/pages/manifest.json says it: its frame's path and its id attribute. */
import type { Page } from "../../src/browser/page.js";
import type { Frame } from "../../src/browser/frames.js";
import { readFileSync } from "node:fs";

/** One element of a fixture page as fixtures/pages/manifest.json lists it. */
export interface ManifestElement {
  id: string;
  role: string;
  name: string;
  frame: string;
  hidden?: boolean;
  revealedBy?: string;
  target?: boolean;
}

export interface ManifestPage {
  page: string;
  generated?: boolean;
  elements: ManifestElement[];
}

/** fixtures/pages/manifest.json, read once per caller. */
export function fixtureManifest(): ManifestPage[] {
  return JSON.parse(readFileSync(new URL("../../fixtures/pages/manifest.json", import.meta.url), "utf8")) as ManifestPage[];
}

/** Frame id → manifest frame path ("main", "mid-frame/inner-frame"), from each iframe element's id. */
export async function framePaths(p: Page): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const f of p.frames.ordered()) {
    if (f.parentId === undefined) {
      paths.set(f.id, "main");
      continue;
    }
    const parent = p.frames.get(f.parentId);
    if (!parent) continue;
    // The frame map may still hold a frame of the previous document: it has no owner any more.
    const owner = await parent.session.send("DOM.getFrameOwner", { frameId: f.id }).catch(() => undefined);
    if (!owner) continue;
    const id = await attribute(parent, owner.backendNodeId, "id");
    const parentPath = paths.get(parent.id);
    paths.set(f.id, parentPath === undefined || parentPath === "main" ? id : `${parentPath}/${id}`);
  }
  return paths;
}

export async function attribute(frame: Frame, backendNodeId: number, name: string): Promise<string> {
  const { node } = await frame.session.send("DOM.describeNode", { backendNodeId });
  const attrs = node.attributes ?? [];
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1] ?? "";
  return "";
}

