/**
 * page.webmcp in real Chrome: the tools fixtures/pages/webmcp.html and its iframe register, listed through
 * CDP's WebMCP domain and run there; the bounds on what the page gives; a removal and a navigation.
 */
import { describe, expect, it } from "vitest";
import { useFixtureServer } from "../support/use-resource.js";
import { makeService, textIn, useService, waitFor } from "../support/browser.js";
import { WEBMCP_LIMITS } from "../../src/browser/webmcp.js";

const server = useFixtureServer();
const env = useService();

async function openFixture() {
  const page = env.svc.page;
  await page.goto(server.url("webmcp.html"));
  // the iframe's tool comes with its document, a moment after the page's load
  await waitFor(async () => (await page.webmcp.tools()).some((t) => t.name === "echo"));
  return page;
}

describe("page.webmcp", () => {
  it("lists the page's and its frame's tools, bounded, main frame first, then by name", async () => {
    const page = await openFixture();
    const tools = await page.webmcp.tools();
    expect(tools.map((t) => t.name)).toEqual(["add", "big", "fail", "echo"]);
    expect(tools[0]).toEqual({
      name: "add",
      description: "Adds two numbers a and b.",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    });
    expect(tools[0]!.frame).toBeUndefined();
    expect(tools[2]!.description).toHaveLength(WEBMCP_LIMITS.descriptionChars);
    expect(tools[2]!.description.startsWith("Always throws. xxx")).toBe(true);
    expect(tools[3]!.frame).toBe(server.url("webmcp-frame.html"));
  });

  it("calls a tool in the page and in its frame; the page ran it", async () => {
    const page = await openFixture();
    expect(await page.webmcp.callTool("add", { a: 2, b: 40 })).toEqual({ name: "add", output: { content: [{ type: "text", text: "42" }] }, truncated: false });
    expect(await textIn(page, "#result")).toBe("add called: 2 + 40");
    expect(await page.webmcp.callTool("echo", { text: "hi" })).toEqual({ name: "echo", output: "echo: hi", truncated: false });
  });

  it("a tool that throws is an error carrying its message; a long result is cut with a note", async () => {
    const page = await openFixture();
    const thrown = await page.webmcp.callTool("fail", {}).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "WEBMCP_TOOL_FAILED" });
    expect((thrown as Error).message).toContain("Error: the fail tool failed on purpose");
    const big = await page.webmcp.callTool("big");
    expect(big.truncated).toBe(true);
    expect(big.output).toMatch(/^"y{1000}/);
    expect(big.output).toContain(`svc cut the tool's result: 100002 bytes as JSON, ${WEBMCP_LIMITS.resultBytes} kept`);
  });

  it("an unregistered tool is not found; the change is told; a navigation takes the tools away", async () => {
    const page = await openFixture();
    let changes = 0;
    const off = page.webmcp.onChange(() => changes++);
    await page.locator("#unregister").click();
    await waitFor(() => changes > 0);
    expect((await page.webmcp.tools()).map((t) => t.name)).toEqual(["add", "big", "echo"]);
    await expect(page.webmcp.callTool("fail", {})).rejects.toMatchObject({ code: "WEBMCP_TOOL_NOT_FOUND" });
    await expect(page.webmcp.callTool("no-such-tool", {})).rejects.toMatchObject({ code: "WEBMCP_TOOL_NOT_FOUND" });
    const before = changes;
    await page.goto(server.url("forms.html"));
    await waitFor(() => changes > before);
    expect(await page.webmcp.tools()).toEqual([]);
    await expect(page.webmcp.callTool("add", { a: 1, b: 1 })).rejects.toMatchObject({ code: "WEBMCP_TOOL_NOT_FOUND" });
    off();
  });

  it("refuses a bad name or arguments, naming the field", async () => {
    const page = await openFixture();
    await expect(page.webmcp.callTool("bad name!", {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^name:/) });
    await expect(page.webmcp.callTool("x".repeat(65), {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(page.webmcp.callTool("add", [1, 2])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^args:/) });
  });
});

describe("a Chrome without WebMCP", () => {
  it("listing or calling is UNSUPPORTED, naming Chrome's version", async () => {
    // The user's --disable-features wins over the --enable-features svc adds.
    const svc = makeService({ localBrowserLaunchOptions: { args: ["--disable-features=WebMCP"] } });
    await svc.init();
    try {
      await svc.page.goto(server.url("webmcp.html"));
      const major = /Chrome\/(\d+)\./.exec(await svc.page.evaluate<string>("navigator.userAgent"))![1];
      await expect(svc.page.webmcp.tools()).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining(`WebMCP is not supported by this browser (Chrome ${major}): it runs with WebMCP off`) });
      await expect(svc.page.webmcp.callTool("add", { a: 1, b: 2 })).rejects.toMatchObject({ code: "UNSUPPORTED" });
    } finally {
      await svc.close();
    }
  });
});
