/**
 * The Action methods the CLI verbs added (check, uncheck, focus, setInputFiles) through the library's
 * act(action), in real Chrome: the effect the page shows, the errors when the element does not fit, and that a
 * model can never choose setInputFiles (its arguments are local paths).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_METHODS, MODEL_ACTION_METHODS } from "../../src/operations/action.js";
import { startFixtureServer, type FixtureServer } from "../support/server.js";
import { action, textIn, useService } from "../support/browser.js";

let server: FixtureServer;
let dir: string;
beforeAll(async () => {
  server = await startFixtureServer();
  dir = mkdtempSync(join(tmpdir(), "svc-upload-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = useService();
const act = (method: string, selector: string, args: string[] = []) => env.svc.act(action(method, selector, args));
const text = (selector: string) => textIn(env.svc.page, selector);

describe("check / uncheck", () => {
  beforeAll(() => env.svc.page.goto(server.url("forms.html")));

  it("checks once, leaves a checked box alone, unchecks; a radio checks but never unchecks", async () => {
    await act("check", "#subscribe");
    expect(await text("#log")).toBe("subscribe: true");
    await env.svc.page.evaluate(() => (document.getElementById("log")!.textContent = "untouched"));
    await act("check", "#subscribe");
    expect(await text("#log")).toBe("untouched"); // no click: it was checked already
    await act("uncheck", "#subscribe");
    expect(await text("#log")).toBe("subscribe: false");
    await act("check", "#plan-team");
    expect(await text("#log")).toBe("plan-team: true");
    await expect(act("uncheck", "#plan-team")).rejects.toMatchObject({ code: "ELEMENT_NOT_FOUND", message: expect.stringMatching(/cannot uncheck a radio/) });
    await expect(act("check", "#name")).rejects.toMatchObject({ code: "ELEMENT_NOT_FOUND", message: expect.stringMatching(/not a checkbox or radio/) });
  });
});

describe("focus and setInputFiles", () => {
  beforeAll(() => env.svc.page.goto(server.url("controls.html")));

  it("focus fires the element's focus handler", async () => {
    await act("focus", "#focus-me");
    expect(await text("#focus-state")).toBe("focused");
  });

  it("sets a file input's files (by the input or its label); a missing file or a non-file element fails", async () => {
    const file = join(dir, "cv.txt");
    writeFileSync(file, "hello");
    const res = await act("setInputFiles", "#cv", [file]);
    expect(res.actions[0]).toMatchObject({ method: "setInputFiles", arguments: [file] });
    expect(await text("#chosen")).toBe("cv.txt (5 bytes)");
    const other = join(dir, "other.txt");
    writeFileSync(other, "hi");
    await act("setInputFiles", "label[for=cv]", [other]);
    expect(await text("#chosen")).toBe("other.txt (2 bytes)");

    await expect(act("setInputFiles", "#cv", [join(dir, "missing.pdf")])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/no such file/) });
    await expect(act("setInputFiles", "#cv", [])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(act("setInputFiles", "#cv", [file, other])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/takes one file/) });
    await expect(act("setInputFiles", "#double", [file])).rejects.toMatchObject({ code: "ELEMENT_NOT_FOUND", message: expect.stringMatching(/not a file input/) });
  });

  it("setInputFiles is a caller's method only: no model may choose it", () => {
    expect(ACTION_METHODS).toContain("setInputFiles");
    expect(MODEL_ACTION_METHODS).not.toContain("setInputFiles");
    expect(MODEL_ACTION_METHODS).toEqual(expect.arrayContaining(["check", "uncheck", "focus"]));
  });
});
