/**
 * Snapshots of real pages in real Chrome: every interactive element listed in fixtures/pages/manifest.json
 * must appear as a ref line with its role and name, and the ref must resolve to that very element (its frame
 * and its id attribute), across same-origin and cross-origin iframes and open and closed shadow roots.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { useService, waitFor } from "../support/browser.js";
import type { Page } from "../../src/browser/page.js";
import { resolveSelector } from "../../src/browser/resolve.js";
import { captureSnapshot, type RefTarget, type Snapshot } from "../../src/snapshot/index.js";
import { attribute, fixtureManifest, framePaths, type ManifestElement } from "../support/frame-paths.js";

const manifest = fixtureManifest();

const server = useFixtureServer();

const env = useService();
const page = (): Page => env.svc.page;

/** The ref line for a ref: `e12 role name`, then the end, `: value` or ` [states]`. */
function refLine(snapshot: Snapshot, target: RefTarget): string | undefined {
  const head = `${target.ref} ${target.role}`;
  return snapshot.text.split("\n").find((l) => {
    const s = l.trimStart();
    return s === head || s.startsWith(head + " ") || s.startsWith(head + ":");
  });
}

function hasLine(snapshot: Snapshot, el: ManifestElement): boolean {
  return snapshot.refs.list().some((r) => {
    if (r.role !== el.role || r.name !== el.name) return false;
    const line = refLine(snapshot, r)?.trimStart();
    if (!line) return false;
    const rest = line.slice(`${r.ref} ${r.role}`.length);
    return rest === ` ${el.name}` || rest.startsWith(` ${el.name}:`) || rest.startsWith(` ${el.name} [`);
  });
}

/** Snapshots until `ok` holds (frames load after the main document's load event), or returns the last one. */
async function snapshotUntil(p: Page, ok: (s: Snapshot) => boolean, timeout = 10_000): Promise<Snapshot> {
  let last: Snapshot | undefined;
  await waitFor(async () => ok((last = await captureSnapshot(p))), timeout).catch(() => {});
  return last ?? captureSnapshot(p);
}

async function reveal(p: Page, how: string): Promise<void> {
  const m = /^(click|hover) (\S+?)(?:,|$)/.exec(how);
  if (!m) throw new Error(`unknown revealedBy: ${how}`);
  const loc = p.locator(m[2]!);
  if (m[1] === "click") await loc.click();
  else await loc.hover();
}

describe("every interactive fixture element has a ref", () => {
  for (const entry of manifest) {
    it(entry.page, async () => {
      const p = page();
      await p.goto(server.url(entry.page));
      const visible = entry.elements.filter((e) => !e.hidden);
      const snapshot = await snapshotUntil(p, (s) => visible.every((el) => hasLine(s, el)));

      const paths = await framePaths(p);
      for (const el of visible) {
        expect(hasLine(snapshot, el), `${entry.page}: ${el.role} "${el.name}" in ${el.frame}\n${snapshot.text}`).toBe(true);
        // The ref resolves to this element: its frame and its id attribute.
        const candidates = snapshot.refs.list().filter((r) => r.role === el.role && r.name === el.name && paths.get(r.frameId) === el.frame);
        expect(candidates, `${entry.page}: no ${el.role} "${el.name}" ref in frame ${el.frame}`).toHaveLength(1);
        const target = candidates[0]!;
        const frame = p.frames.get(target.frameId)!;
        expect(await attribute(frame, target.backendNodeId, "id")).toBe(el.id);
      }
      const refs = snapshot.refs.list().map((r) => r.ref);
      expect(refs).toEqual(refs.map((_, i) => `e${i + 1}`));

      // Hidden elements: do what reveals them (once per distinct action: a second click would close a menu).
      const hidden = entry.elements.filter((e) => e.hidden);
      for (const how of new Set(hidden.map((e) => e.revealedBy ?? ""))) {
        const group = hidden.filter((e) => (e.revealedBy ?? "") === how);
        await reveal(p, how);
        const after = await snapshotUntil(p, (s) => group.every((el) => hasLine(s, el)), 5000);
        for (const el of group) expect(hasLine(after, el), `${entry.page}: hidden ${el.role} "${el.name}" after ${how}\n${after.text}`).toBe(true);
      }
    });
  }
});

describe("options on real pages", () => {
  it("shows closed shadow roots and cross-origin frames in one outline, in document order", async () => {
    const p = page();
    await p.goto(server.url("iframe-in-shadow.html"));
    const s = await snapshotUntil(p, (snap) => snap.refs.size >= 5);
    expect(s.text).toMatch(/^e1 button Main button$/m);
    expect(s.text).toMatch(/^iframe Frame in closed shadow root\n {2}Child frame on http:\/\/127\.0\.0\.1:\d+\n {2}e4 button Child button$/m);
  });

  it("scope limits the outline to one element (by selector)", async () => {
    const p = page();
    await p.goto(server.url("forms.html"));
    const el = await resolveSelector(p.frames, "#signup", { deep: true });
    const s = await captureSnapshot(p, { scope: { frameId: el.frame.id, backendNodeId: await el.backendNodeId } });
    expect(s.text.split("\n")[0]).toBe("form Sign up");
    expect(s.text).not.toContain("h1 Forms");
    expect(s.refs.size).toBe(12);
    expect(s.refs.get("e1")).toMatchObject({ role: "textbox", name: "Full name" });
  });

  it("scope into a cross-origin frame", async () => {
    const p = page();
    await p.goto(server.url("nested.html"));
    await snapshotUntil(p, (snap) => snap.refs.size >= 4);
    const mid = p.frames.ordered().find((f) => f.url.includes("nested-mid.html"))!;
    const { root } = await mid.session.send("DOM.getDocument", { depth: 0 });
    const { nodeId } = await mid.session.send("DOM.querySelector", { nodeId: root.nodeId, selector: "body" });
    const { node } = await mid.session.send("DOM.describeNode", { nodeId });
    const s = await captureSnapshot(p, { scope: { frameId: mid.id, backendNodeId: node.backendNodeId } });
    expect(s.text).not.toContain("Top button");
    expect(s.refs.list().map((r) => r.name)).toEqual(["Middle button", "Child button", "Child input"]);
  });

  it("interactiveOnly and maxTokens keep every ref on the large page", async () => {
    const p = page();
    await p.goto(server.url("large.html"));
    const full = await captureSnapshot(p);
    expect(full.refs.size).toBe(1201);
    const io = await captureSnapshot(p, { interactiveOnly: true });
    expect(io.refs.size).toBe(1201);
    expect(io.tokens).toBeLessThan(full.tokens);
    expect(io.text).not.toContain("Description of item");
    const budget = Math.floor(full.tokens * 0.7);
    const trimmed = await captureSnapshot(p, { maxTokens: budget });
    expect(trimmed.refs.size).toBe(1201);
    for (const r of trimmed.refs.list()) expect(trimmed.text).toContain(`${r.ref} ${r.role} ${r.name}`);
    expect(trimmed.tokens).toBeLessThan(full.tokens);
    expect(trimmed.text).toMatch(/text lines omitted \(token budget\)$/);
  });
});
