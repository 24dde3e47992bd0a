import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { startFixtureServer, type FixtureServer } from "../support/server.js";

interface ManifestFrame { path: string; page: string; crossOrigin: boolean }
interface ManifestPage {
  page: string;
  generated?: boolean;
  frames: ManifestFrame[];
  elements: Array<{ id: string; role: string; name: string; frame: string }>;
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
});

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: string; res: Response }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text(), res };
}

describe("fixture server", () => {
  it("serves a page on both hosts with the right content type", async () => {
    for (const host of ["localhost", "127.0.0.1"] as const) {
      const r = await get(server.url("forms.html", host));
      expect(r.status).toBe(200);
      expect(r.type).toMatch(/^text\/html/);
      expect(r.body).toContain('id="country"');
    }
  });

  it("substitutes {{OTHER}} and {{SELF}} with the origins, both ways", async () => {
    const p = server.port;
    const fromLocal = (await get(server.url("iframes.html", "localhost"))).body;
    expect(fromLocal).toContain(`src="http://127.0.0.1:${p}/frame-child.html"`);
    expect(fromLocal).not.toContain("{{");
    const fromIp = (await get(server.url("/iframes.html", "127.0.0.1"))).body;
    expect(fromIp).toContain(`src="http://localhost:${p}/frame-child.html"`);
    const child = (await get(server.url("frame-child.html", "127.0.0.1"))).body;
    expect(child).toContain(`Child frame on http://127.0.0.1:${p}`);
  });

  it("serves JSON with its content type", async () => {
    const r = await get(server.url("manifest.json"));
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
  });

  it("generates /large.html with at least 5000 elements and a last button", async () => {
    const r = await get(server.url("large.html"));
    expect(r.status).toBe(200);
    const tags = r.body.match(/<[a-z][a-z0-9-]*[\s>]/gi) ?? [];
    expect(tags.length).toBeGreaterThanOrEqual(5000);
    expect(r.body.trimEnd()).toMatch(/<button id="last-button">Last button<\/button>\s*<script>[\s\S]*<\/html>$/);
    expect((await get(server.url("large.html"))).body).toBe(r.body); // deterministic
  });

  it("answers 404 for unknown paths and path traversal", async () => {
    expect((await get(server.url("nope.html"))).status).toBe(404);
    expect((await get(server.url("/..%2F..%2Fpackage.json"))).status).toBe(404);
    expect((await get(server.url("/%E0%A4%A.html"))).status).toBe(404);
    expect((await get(server.url("/"))).status).toBe(404);
  });

  it("redirects with 302", async () => {
    const r = await get(server.url("/redirect?to=/forms.html"), { redirect: "manual" });
    expect(r.status).toBe(302);
    expect(r.res.headers.get("location")).toBe("/forms.html");
    const followed = await fetch(server.url("/redirect?to=/forms.html", "127.0.0.1"));
    expect(followed.url).toBe(server.url("/forms.html", "127.0.0.1"));
  });

  it("delays /slow by the requested time", async () => {
    const t0 = Date.now();
    const r = await get(server.url("/slow?ms=150"));
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});

describe("fixture manifest", () => {
  it("names only ids that exist in the page each element's frame loads", async () => {
    const manifest = JSON.parse(await readFile(new URL("../../fixtures/pages/manifest.json", import.meta.url), "utf8")) as ManifestPage[];
    expect(manifest.length).toBeGreaterThan(10);
    for (const page of manifest) {
      const file = (frame: string) => (frame === "main" ? page.page : page.frames.find((f) => f.path === frame)?.page);
      for (const el of page.elements) {
        const src = file(el.frame);
        expect(src, `${page.page}: frame ${el.frame}`).toBeDefined();
        const html = (await get(server.url(src!))).body;
        if (page.generated) continue; // large.html: ids are built in a loop
        // Static markup (id="x") or made by script (b.id = "x").
        expect(html.includes(`id="${el.id}"`) || html.includes(`.id = "${el.id}"`), `${page.page}: #${el.id} in ${src}`).toBe(true);
        expect(el.role && el.name, `${page.page}: #${el.id}`).toBeTruthy();
      }
    }
  });
});
