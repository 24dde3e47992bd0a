/**
 * snapshot and screenshot, declared once (src/capabilities/page.ts), on the CLI: `svc snapshot --tab N` reads the
 * tab `svc tabs` numbers N and leaves the selection where it was, as the MCP tool's `tab` does; `--new` without a
 * URL is refused by both verbs; `svc screenshot --tab N` of a background tab gives its picture.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { json, sessionRunners, useCliWorld } from "./helpers.js";

const world = useCliWorld({ session: true });
const { ok, fails } = sessionRunners(() => world.sb.env);

describe("svc snapshot --tab, and --new without a URL", () => {
  it("reads the numbered tab, not the selected one, and the selection stays", async () => {
    await ok("goto", world.server.url("forms.html"));
    const second = json<{ selected: number }>(await ok("--json", "tabs", "new", world.server.url("controls.html"))).selected;
    await ok("tabs", "select", "1");

    const other = json<{ url: string; snapshot: string }>(await ok("--json", "snapshot", "--tab", String(second)));
    expect(other.url).toBe(world.server.url("controls.html"));
    const own = json<{ url: string; snapshot: string }>(await ok("--json", "snapshot"));
    expect(own.url).toBe(world.server.url("forms.html"));
    expect(own.snapshot).toMatch(/textbox Full name/);
    expect(other.snapshot).not.toMatch(/textbox Full name/);
    expect(await fails(2, "snapshot", "--tab", "99")).toMatch(/--tab: no open tab 99/);
  });

  it("screenshot --tab of a background tab: its picture (it hung waiting for a frame Chrome never paints), and the selection stays", async () => {
    await ok("goto", world.server.url("forms.html"));
    const second = json<{ selected: number }>(await ok("--json", "tabs", "new", world.server.url("controls.html"))).selected;
    await ok("tabs", "select", "1");
    for (const tab of [String(second), "1"]) {
      const shot = json<{ url: string; bytes: number; width: number }>(await ok("--json", "screenshot", "--tab", tab, "-o", join(world.sb.tmp, `tab-${tab}.png`)));
      expect(shot.url).toBe(world.server.url(tab === "1" ? "forms.html" : "controls.html"));
      expect(shot.bytes).toBeGreaterThan(0);
      expect(shot.width).toBeGreaterThan(0);
    }
    expect(json<{ url: string }>(await ok("--json", "snapshot")).url).toBe(world.server.url("forms.html"));
  });

  it("--new without a URL is refused, naming the verb", async () => {
    for (const verb of ["snapshot", "screenshot"]) {
      expect(await fails(2, verb, "--new")).toMatch(new RegExp(`--new applies to ${verb} URL`));
    }
  });
});
