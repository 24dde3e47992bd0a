/**
 * Refs mean one element: an element keeps its ref across snapshots while its role and name hold; a number never
 * passes to another element, after DOM changes or navigations; a ref whose element is gone, changed or of an earlier
 * document fails as STALE_REF; with a RefStore refs outlive the Service (backendNodeIds and loaderIds hold over any
 * connection).
 */
import { describe, expect, it } from "vitest";
import { ServiceStaleRefError } from "../../src/errors.js";
import type { Service } from "../../src/service.js";
import { domTools } from "../../src/agent/tools-dom.js";
import type { ToolEnv } from "../../src/agent/tools.js";
import { PageSnapshots } from "../../src/operations/snapshots.js";
import { action, launchedOf, makeService, useService } from "../support/browser.js";
import { inPage } from "../support/models.js";
import { useFixtureServer } from "../support/use-resource.js";
import { rejection } from "../support/rejection.js";

const server = useFixtureServer();

const env = useService();
const page = () => env.svc.page;
const outline = async (svc: Service = env.svc) => ((await svc.extract()) as { pageText: string }).pageText;
/** The ref shown for `role name` (the line's first word), or undefined. */
const refIn = (text: string, line: string) => new RegExp(`^\\s*(e\\d+) ${line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?::|$| \\[)`, "m").exec(text)?.[1];
const value = (id: string) => inPage<string>(page(), `document.getElementById(${JSON.stringify(id)}).value`);

describe("refs across snapshots", () => {
  it("an element keeps its ref while its role and name hold; a value typed into it changes nothing", async () => {
    await page().goto(server.url("forms.html"));
    const first = await outline();
    const name = refIn(first, "textbox Full name")!;
    const submit = refIn(first, "button Submit")!;
    expect(name).toBeDefined();
    await env.svc.act(action("fill", name, ["Ada"]));
    const second = await outline();
    expect(refIn(second, "textbox Full name")).toBe(name);
    expect(refIn(second, "button Submit")).toBe(submit);
    expect(second).toContain(`${name} textbox Full name: Ada`);
  });

  it("an element removed and another inserted: the old ref is STALE_REF, the new element gets a new number", async () => {
    await page().goto(server.url("forms.html"));
    const before = await outline();
    const name = refIn(before, "textbox Full name")!;
    const email = refIn(before, "textbox Email")!;
    const numbers = [...before.matchAll(/\be(\d+) /g)].map((m) => Number(m[1]));
    // The first field is replaced by a new one in the same place, with the same id and label.
    await inPage(page(), `document.getElementById("name").replaceWith(document.getElementById("name").cloneNode())`);
    const after = await outline();
    const renamed = refIn(after, "textbox Full name")!;
    expect(renamed).not.toBe(name);
    expect(Number(renamed.slice(1))).toBeGreaterThan(Math.max(...numbers));
    expect(refIn(after, "textbox Email")).toBe(email);
    const e = await rejection(env.svc.act(action("type", name, ["x"])));
    expect(e).toBeInstanceOf(ServiceStaleRefError);
    expect(e.code).toBe("STALE_REF");
    expect(e.message).toMatch(/gone|changed/);
    expect(e.hint).toMatch(/new snapshot/);
    expect(await value("name")).toBe("");
    await env.svc.act(action("type", renamed, ["Ada"]));
    expect(await value("name")).toBe("Ada");
  });

  it("an element whose name changed since the snapshot: acting on its ref is STALE_REF, nothing is clicked", async () => {
    await page().goto(server.url("forms.html"));
    const submit = refIn(await outline(), "button Submit")!;
    await inPage(page(), `(() => { const b = document.getElementById("submit"); b.textContent = "Delete account"; b.type = "button"; b.onclick = () => { document.title = "deleted"; }; })()`);
    const e = await rejection(env.svc.act(action("click", submit)));
    expect(e).toBeInstanceOf(ServiceStaleRefError);
    expect(e.message).toContain(`ref ${submit} was button "Submit"; that element is now button "Delete account"`);
    expect(await inPage<string>(page(), "document.title")).toBe("Forms");
    // A new snapshot shows it under a new number, which works.
    const now = refIn(await outline(), "button Delete account")!;
    expect(now).not.toBe(submit);
    await env.svc.act(action("click", now));
    expect(await inPage<string>(page(), "document.title")).toBe("deleted");
  });

  it("after a navigation (the same URL again) old refs are STALE_REF and numbers are not reused", async () => {
    await page().goto(server.url("forms.html"));
    const before = await outline();
    const name = refIn(before, "textbox Full name")!;
    await page().goto(server.url("forms.html"));
    const e = await rejection(env.svc.act(action("fill", name, ["Ada"])));
    expect(e).toBeInstanceOf(ServiceStaleRefError);
    expect(e.message).toMatch(/earlier document: the page navigated/);
    const after = await outline();
    const again = refIn(after, "textbox Full name")!;
    expect(Number(again.slice(1))).toBeGreaterThan(Number(name.slice(1)));
    expect(await rejection(env.svc.act(action("fill", name, ["Ada"])))).toBeInstanceOf(ServiceStaleRefError);
    await env.svc.act(action("fill", again, ["Ada"]));
    expect(await value("name")).toBe("Ada");
  });

  it("a ref never shown on the page says so", async () => {
    await page().goto(server.url("forms.html"));
    await outline();
    const e = await rejection(env.svc.act(action("click", "e9999")));
    expect(e).toBeInstanceOf(ServiceStaleRefError);
    expect(e.message).toMatch(/^ref e9999 was not shown by any snapshot of this page/);
  });
});

describe("the agent's ariaTree tool", () => {
  it("shows the page's refs (the numbers of the step's outline), not a numbering of its own", async () => {
    await page().goto(server.url("forms.html"));
    const snapshots = new PageSnapshots();
    const step = await snapshots.take(page());
    const pro = refIn(step.text, "radio Pro")!;
    const tool = domTools(undefined).find((t) => t.name === "ariaTree")!;
    const env = { page: page(), snapshots, refs: step.refs } as unknown as ToolEnv;
    const out = await tool.run(env, { selector: "fieldset" });
    expect(out.pageText).toContain(`${pro} radio Pro`);
    expect(refIn(out.pageText!, "radio Pro")).toBe(pro);
  });
});

describe("refs across processes (a RefStore)", () => {
  it("a second Service on the same Chrome resolves the first one's refs, until the page navigates", async () => {
    const saved = new Map<string, unknown>();
    const store = { load: (id: string) => saved.get(id), save: (id: string, s: unknown) => void saved.set(id, JSON.parse(JSON.stringify(s))) };
    const a = makeService({ refStore: store });
    await a.init();
    try {
      const cdpUrl = launchedOf(a).wsEndpoint;
      await a.page.goto(server.url("forms.html"));
      const text = await outline(a);
      const email = refIn(text, "textbox Email")!;
      expect(saved.size).toBe(1);

      // backendNodeIds (and the document's loaderId) are the same over a new CDP connection.
      const b = makeService({ refStore: store, localBrowserLaunchOptions: { cdpUrl } });
      await b.init();
      try {
        await b.act(action("type", email, ["ada@example.com"]));
        expect(await b.page.evaluate<string>(`document.getElementById("email").value`)).toBe("ada@example.com");
        expect(refIn(await outline(b), "textbox Email")).toBe(email);
      } finally {
        await b.close();
      }

      // Without the store a new Service knows no refs: STALE_REF, not a guess.
      const c = makeService({ localBrowserLaunchOptions: { cdpUrl } });
      await c.init();
      try {
        expect(await rejection(c.act(action("type", email, ["x"])))).toBeInstanceOf(ServiceStaleRefError);
      } finally {
        await c.close();
      }

      await a.page.goto(server.url("forms.html"));
      const d = makeService({ refStore: store, localBrowserLaunchOptions: { cdpUrl } });
      await d.init();
      try {
        const e = await rejection(d.act(action("type", email, ["x"])));
        expect(e).toBeInstanceOf(ServiceStaleRefError);
        expect(e.message).toMatch(/the page navigated/);
      } finally {
        await d.close();
      }
    } finally {
      await a.close({ force: true });
    }
  });
});
