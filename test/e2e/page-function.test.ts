// Functions sent to the page must work when svc runs from TypeScript under tsx, whose esbuild keepNames
// wraps inner functions in `__name(fn, "name")` calls that do not exist in the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { useService } from "../support/browser.js";

declare function __name<T>(fn: T, name: string): T;

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
});

describe("page functions carry a __name stand-in", () => {
  const ctx = useService();

  it("page.evaluate runs a function whose source calls __name", async () => {
    await ctx.svc.page.goto(server.url("forms.html"));
    const fn = (n: number) => {
      const double = __name((x: number) => x * 2, "double");
      return double(n);
    };
    expect(await ctx.svc.page.evaluate(fn, 21)).toBe(42);
  });

  it("the same holds for element functions (selectOptionFromDropdown) and selector resolution", async () => {
    await ctx.svc.page.goto(server.url("forms.html"));
    const r = await ctx.svc.act({ selector: "#country", description: "country", method: "selectOptionFromDropdown", arguments: ["Japan"] });
    expect(r.success).toBe(true);
    expect(await ctx.svc.page.evaluate(() => (document.querySelector("#country") as HTMLSelectElement).value)).toMatch(/jp|japan/i);
  });
});
