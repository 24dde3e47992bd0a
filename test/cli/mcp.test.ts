/**
 * `svc mcp` driven by the official SDK's Client over stdio and streamable HTTP (`--http --port 0`, URL from stderr):
 * tools listed, the forms fixture driven end to end on refs with the fake model, a failure as an MCP tool error with
 * svc's code, and the client going (stdin closed, MCP session deleted) ending its Chrome.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateToken, parseCaps, serveHttp } from "../../src/mcp/index.js";
import { estimateTokens } from "../../src/snapshot/index.js";
import { BIN, type ModelWorld, ROOT, chromeProcessesOf, collect, expectNoChrome, processesMentioning, spawnSvc, startModelWorld, waitFor, pollUntil } from "./helpers.js";
import { call, openStdio, served, text, withToken } from "./mcp-support.js";

let world: ModelWorld;

beforeAll(async () => {
  world = await startModelWorld();
});

afterAll(async () => {
  await world?.close();
});

beforeEach(() => world.fake.reset());

/** The core set, offered by default; each capability set (`--caps`) adds its tools (webmcp: only the tab's own tools, mcp-webmcp.test.ts). */
const CORE = ["navigate", "back", "forward", "reload", "snapshot", "click", "fill", "type", "press", "select", "hover", "check", "scroll", "wait", "screenshot", "close", "act", "extract", "observe"];
const BY_CAP: Record<string, string[]> = { tabs: ["tabs", "resize"], forms: ["fill_form", "upload", "drag", "dialog", "focus"], devtools: ["find", "evaluate", "console", "errors", "trace_start", "trace_stop"], network: ["network_requests", "network_request", "route", "unroute", "routes"], pdf: ["pdf"], emulation: ["emulate"], agent: ["agent"], web: ["search", "fetch"], webmcp: [] };
const ALL = [...CORE, ...Object.values(BY_CAP).flat()];

/** The ref of the line `eN role name…` in a snapshot. */
function refOf(snapshot: string, role: string, name: string): string {
  const line = snapshot.split("\n").find((l) => new RegExp(`^\\s*e\\d+ ${role} ${name}`).test(l));
  if (!line) throw new Error(`no ${role} "${name}" in:\n${snapshot}`);
  return line.trim().split(" ")[0]!;
}

/** The whole loop on the forms fixture; returns nothing, asserts as it goes. */
async function driveForms(client: Client): Promise<void> {
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual([...ALL].sort());
  for (const t of tools.tools) expect(t.description!.length).toBeLessThan(100);

  const nav = await call(client, "navigate", { url: world.server.url("forms.html") });
  expect(nav.isError).toBeFalsy();
  expect(text(nav)).toContain("navigated to");
  const snap = text(await call(client, "snapshot", { interactive: true }));
  expect(snap).not.toContain("Help: fill in the form"); // interactive-only: no plain text lines
  const full = text(await call(client, "snapshot"));
  expect(full).toContain("Help: fill in the form");
  const budget = text(await call(client, "snapshot", { maxTokens: 60 }));
  expect(budget.length).toBeLessThan(full.length);
  expect(estimateTokens(budget)).toBeLessThanOrEqual(60); // ref lines too are cut to the budget, which says so
  expect(budget).toMatch(/\n… \d+ lines left out \(\d+ with refs; token budget\): the rest: --from e\d+, a part: -s <selector>$/);
  const name = refOf(snap, "textbox", "Full name");
  const submit = refOf(snap, "button", "Submit");

  const filled = await call(client, "fill", { target: name, value: "Ada" });
  expect(filled.isError).toBeFalsy();
  expect(text(filled)).toMatch(/changes since the last snapshot:[\s\S]*\+ .*Full name: Ada/);
  const checked = await call(client, "check", { target: refOf(snap, "checkbox", "Subscribe") });
  expect(text(checked)).toMatch(/Subscribe to newsletter \[checked\]/);
  expect(text(await call(client, "check", { target: refOf(snap, "checkbox", "Subscribe") }))).toContain("already checked");
  const selected = await call(client, "select", { target: refOf(snap, "combobox", "Country"), option: "France" });
  expect(text(selected)).toMatch(/\+ .*combobox Country: France/);
  expect(text(await call(client, "type", { target: refOf(snap, "textbox", "Bio"), text: "Hi" }))).toMatch(/\+ .*textbox Bio: Hi/);
  const acted = await call(client, "act", { instruction: "please click the Help link" });
  expect(acted.isError).toBeFalsy();
  expect(text(acted)).toContain("clicked: help-link");
  expect(world.fake.requestsFor("act").length).toBe(1);
  const clicked = await call(client, "click", { target: submit });
  expect(clicked.isError).toBeFalsy();
  expect(text(clicked)).toContain('"name":"Ada"');
  expect(text(clicked)).toContain('"country":"fr"');

  const extracted = await call(client, "extract", { instruction: "the status line with the result" });
  expect(extracted.isError).toBeFalsy();
  expect(text(extracted)).toContain('"name":"Ada"'); // the extraction's text as it is
  expect(world.fake.requestsFor("extract").length).toBe(1);

  const shot = await call(client, "screenshot");
  expect(shot.content[0]).toMatchObject({ type: "image", mimeType: "image/png" });
  expect(Buffer.from(shot.content[0]!.data!, "base64").subarray(1, 4).toString()).toBe("PNG");
  expect(shot.content[1]?.text).toMatch(/^\d+×\d+ px, scale 1: page px = image px \/ 1$/);
  const same = await call(client, "screenshot", { ifChanged: true });
  expect(same.content.map((c) => c.type)).toEqual(["text"]);
  expect(text(same)).toMatch(/^unchanged/);
  // Another page: a picture again; a full page 3000 px tall comes back 2000 px long, with the scale that maps it back.
  await call(client, "navigate", { url: world.server.url("tall.html") });
  const tall = await call(client, "screenshot", { fullPage: true, ifChanged: true });
  const png = Buffer.from(tall.content[0]!.data!, "base64");
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  expect(h).toBeLessThanOrEqual(2000);
  expect(h).toBeGreaterThanOrEqual(1999);
  expect(tall.content[1]?.text).toBe(`${w}×${h} px, scale 0.6667: page px = image px / 0.6667`);
  const badSize = await call(client, "screenshot", { maxSize: 50 });
  expect(badSize.isError).toBe(true);
  expect(text(badSize)).toMatch(/^INVALID_ARGUMENT: invalid maxSize: expected 0 \(full size\) or a whole number of pixels from 100 to 10000/);
  await call(client, "navigate", { url: world.server.url("forms.html") });

  const opened = text(await call(client, "tabs", { action: "new", url: world.server.url("steps.html") }));
  expect(opened).toMatch(/^\* 2 .*steps\.html$/m);
  expect(text(await call(client, "tabs", { action: "new" }))).toMatch(/^\* 3 .*about:blank$/m);
  expect(text(await call(client, "tabs", { action: "close", tab: 2 }))).not.toContain("steps.html");
  const tabs = text(await call(client, "tabs", { action: "select", tab: 1 }));
  expect(tabs).toMatch(/^\* 1 Forms .*forms\.html(#help)?$/m);
  expect(tabs).toMatch(/^ {2}3 .*about:blank$/m); // numbers do not shift when a tab closes
  expect(text(await call(client, "tabs", { action: "close", tab: 3 }))).not.toContain("about:blank");

  // A ref no snapshot issued: an MCP tool error whose text leads with svc's code.
  const bad = await call(client, "click", { target: "e999" });
  expect(bad.isError).toBe(true);
  expect(text(bad)).toMatch(/^(STALE_REF|ELEMENT_NOT_FOUND): .*e999/);
  const badScroll = await call(client, "scroll", { to: "sideways" });
  expect(badScroll.isError).toBe(true);
  expect(text(badScroll)).toMatch(/^INVALID_ARGUMENT: to: /);
  // Arguments that do not fit a tool's schema: svc's code and the field, not the SDK's dump of zod issues.
  const noTarget = await call(client, "click", {});
  expect(noTarget.isError).toBe(true);
  expect(text(noTarget)).toMatch(/^INVALID_ARGUMENT: target: .*expected string/i);
  const wrongType = await call(client, "tabs", { action: "select", tab: "two" });
  expect(text(wrongType)).toMatch(/^INVALID_ARGUMENT: tab: /);
  // A tool that does not exist is a tool error too (the model can correct itself), naming the tools there are.
  const unknown = await call(client, "clik", { target: "e1" });
  expect(unknown.isError).toBe(true);
  expect(text(unknown)).toMatch(/^INVALID_ARGUMENT: name: no tool "clik" \(tools: .*\bclick\b.*\)$/);
}

/** An SDK client of `svc mcp` with these flags, over stdio. */
const open = (extra: string[]) => openStdio(world.sb.env, extra);

/** POST {} to url with this Host header (fetch may not set Host). */
function statusWithHost(url: string, host: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { host, "content-type": "application/json", authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("svc mcp", () => {
  it("stdio: the SDK client lists the tools, drives the forms page on refs, gets svc's codes as tool errors; closing stdin ends Chrome", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--caps", "all"], env: world.sb.env as Record<string, string>, cwd: ROOT, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid!;
    try {
      await driveForms(client);
      expect(chromeProcessesOf(world.sb.tmp).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    await expectNoChrome(world.sb.tmp);
    await waitFor(() => !processesMentioning(`${BIN} mcp`).includes(pid));
    expect(stderr).toBe("");
  }, 120_000);

  it("HTTP: a session per client on loopback, driven the same way; deleting the MCP session ends its Chrome, the server stays up", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--caps", "all"], world.sb.env);
    const done = collect(child, 120_000);
    try {
      let err = "";
      child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
      await waitFor(() => /MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp \(bearer token: \S+\)\n/.test(err));
      const { url, token } = served(err);
      const transport = withToken(url, token);
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(transport);
      await driveForms(client);
      expect(chromeProcessesOf(world.sb.tmp).length).toBeGreaterThan(0);
      await transport.terminateSession();
      await client.close();
      await pollUntil(() => chromeProcessesOf(world.sb.tmp).length === 0);
      expect(chromeProcessesOf(world.sb.tmp)).toEqual([]);
      // Another Host header is refused (DNS rebinding), and the server still answers.
      expect(await statusWithHost(url, "evil.example", token)).toBe(403);
      expect(child.exitCode).toBe(null);
    } finally {
      child.kill("SIGTERM");
    }
    const r = await done;
    expect(r.code).toBe(0);
    await expectNoChrome(world.sb.tmp);
  }, 120_000);

  it("HTTP: a session nobody uses for --idle-timeout seconds is closed with its Chrome", async () => {
    const child = spawnSvc(["mcp", "--http", "--port", "0", "--idle-timeout", "2"], world.sb.env);
    const done = collect(child, 120_000);
    try {
      let err = "";
      child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
      await waitFor(() => /MCP server at \S+ \(bearer token: \S+\)\n/.test(err));
      const { url, token } = served(err);
      const transport = withToken(url, token);
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(transport);
      expect((await call(client, "navigate", { url: world.server.url("forms.html") })).isError).toBeFalsy();
      const chrome = () => chromeProcessesOf(world.sb.tmp);
      expect(chrome().length).toBeGreaterThan(0);
      await waitFor(() => chrome().length === 0);
      const after = await call(client, "snapshot").catch((e: unknown) => e as Error);
      expect(String(after instanceof Error ? after.message : text(after))).toMatch(/SESSION_NOT_FOUND|404/);
      await client.close().catch(() => {});
    } finally {
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  }, 120_000);

  it("HTTP: every request needs the bearer token: none or a wrong one is a 401 naming the problem, the right one (--token or SVC_MCP_TOKEN) works; a short token is refused at start", async () => {
    const short = await collect(spawnSvc(["mcp", "--http", "--port", "0", "--token", "short"], world.sb.env), 30_000);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/--token: a token of 16 to 512 characters is needed, got 5/);

    const token = "given-token-0123456789abcdef";
    const child = spawnSvc(["mcp", "--http", "--port", "0"], { ...world.sb.env, SVC_MCP_TOKEN: token });
    const done = collect(child, 120_000);
    try {
      let err = "";
      child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
      await waitFor(() => /MCP server at \S+ \(bearer token as given\)\n/.test(err));
      expect(err).not.toContain(token); // a given token is not echoed
      const url = /MCP server at (\S+)/.exec(err)![1]!;
      const refused = async (transport: StreamableHTTPClientTransport) => {
        const client = new Client({ name: "test", version: "1.0.0" });
        const e = await client.connect(transport).then(
          () => undefined,
          (x: unknown) => x as Error & { code?: number },
        );
        await client.close().catch(() => {});
        return e;
      };
      const none = await refused(new StreamableHTTPClientTransport(new URL(url)));
      expect(none?.code).toBe(401); // the SDK's StreamableHTTPError carries the status
      expect(String(none)).toMatch(/UNAUTHORIZED: Authorization: missing/);
      const wrong = await refused(withToken(url, `${token}x`));
      expect(wrong?.code).toBe(401);
      expect(String(wrong)).toMatch(/UNAUTHORIZED: Authorization: wrong token/);
      const basic = await fetch(url, { method: "POST", headers: { authorization: `Basic ${Buffer.from(`u:${token}`).toString("base64")}`, "content-type": "application/json" }, body: "{}" });
      expect(basic.status).toBe(401);
      expect(await basic.json()).toMatchObject({ error: { message: expect.stringMatching(/^UNAUTHORIZED: Authorization: expected the Bearer scheme/) } });
      // Nothing is started for a refused client; the right token works.
      expect(chromeProcessesOf(world.sb.tmp)).toEqual([]);
      const transport = withToken(url, token);
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...CORE].sort()); // no --caps: the core set
      await transport.terminateSession();
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
  }, 120_000);

  it("--caps: each set adds its tools to the core; every tool beyond the verbs works once; a bad set is a usage error", async () => {
    const plain = await open([]);
    try {
      // No --caps: the core set alone.
      expect((await plain.listTools()).tools.map((t) => t.name).sort()).toEqual([...CORE].sort());
    } finally {
      await plain.close();
    }
    // Each set alone, served in this process: `svc mcp` hands --caps to the same parseCaps and server (the
    // spawns before and after this cover the flag itself), without a Node start per set.
    const token = generateToken();
    for (const [cap, names] of Object.entries(BY_CAP)) {
      const served = await serveHttp({ service: { env: "LOCAL" }, caps: parseCaps(cap), port: 0, token });
      const c = new Client({ name: "test", version: "1.0.0" });
      try {
        await c.connect(withToken(served.url, token));
        expect((await c.listTools()).tools.map((t) => t.name).sort(), cap).toEqual([...CORE, ...names].sort());
      } finally {
        await c.close();
        await served.close();
      }
    }
    const bad = await collect(spawnSvc(["mcp", "--caps", "core,nope"], world.sb.env), 30_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^svc: --caps: unknown capability "nope" \(known: core, tabs, forms, devtools, network, pdf, emulation, agent, web, webmcp, all\)/);

    const c = await open(["--caps", "all"]);
    try {
      // back: to the page before, read in the page.
      await call(c, "navigate", { url: world.server.url("steps.html") });
      await call(c, "navigate", { url: world.server.url("forms.html") });
      const back = await call(c, "back");
      expect(back.isError, text(back)).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "location.pathname" }))).toBe(JSON.stringify("/steps.html"));
      expect((await call(c, "back")).isError).toBeFalsy(); // the tab's first page, about:blank
      const nowhere = await call(c, "back");
      expect(text(nowhere)).toMatch(/^NAVIGATION_FAILED: back: no previous page in this tab's history/); // nothing before it
      // forward and reload: the CLI's verbs, tools of their own since issue 42.
      expect(text(await call(c, "forward"))).toMatch(/^went forward to /);
      expect(text(await call(c, "reload"))).toMatch(/^reloaded /);
      // fill_form: a text field, a checkbox and a dropdown at once; the page's own reading of them.
      await call(c, "navigate", { url: world.server.url("forms.html") });
      const snap = text(await call(c, "snapshot", { interactive: true }));
      const filled = await call(c, "fill_form", {
        fields: [
          { target: refOf(snap, "textbox", "Full name"), value: "Grace" },
          { target: refOf(snap, "checkbox", "Subscribe"), value: true },
          { target: refOf(snap, "combobox", "Country"), value: "France" },
        ],
      });
      expect(filled.isError, text(filled)).toBeFalsy();
      const state = JSON.parse(text(await call(c, "evaluate", { expression: "({ name: document.querySelector('#name').value, sub: document.querySelector('#subscribe').checked, country: document.querySelector('#country').value })" })));
      expect(state).toEqual({ name: "Grace", sub: true, country: "fr" });
      // find: by label, its selector usable as a target; by role with a name.
      const found = text(await call(c, "find", { by: "label", value: "Full name" }));
      expect(found).toMatch(/^1 match; /);
      const sel = found.split("\n")[1]!.split("  ")[0]!;
      expect(text(await call(c, "evaluate", { expression: "document.querySelector('#name').value" }))).toBe(JSON.stringify("Grace"));
      expect((await call(c, "fill", { target: sel, value: "Hopper" })).isError).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "document.querySelector('#name').value" }))).toBe(JSON.stringify("Hopper"));
      expect(text(await call(c, "find", { by: "role", value: "button", name: "Submit" }))).toMatch(/^1 match; [\s\S]*button "Submit"/);
      expect(text(await call(c, "find", { by: "text", value: "nothing like this" }))).toBe('no element matches text "nothing like this"');
      // wait: text that is there; text that never comes times out with svc's code.
      expect((await call(c, "wait", { text: "Full name" })).isError).toBeFalsy();
      // A ref of the last snapshot: visible; hidden once the page hides it.
      const nameRef = refOf(snap, "textbox", "Full name");
      expect((await call(c, "wait", { target: nameRef })).isError).toBeFalsy();
      await call(c, "evaluate", { expression: "setTimeout(() => (document.querySelector('#name').style.display = 'none'), 100), 0" });
      const hidden = await call(c, "wait", { target: nameRef, state: "hidden", timeout: 10_000 });
      expect(hidden.isError, text(hidden)).toBeFalsy();
      const never = await call(c, "wait", { text: "never on this page", timeout: 300 });
      expect(text(never)).toMatch(/^TIMEOUT: /);
      expect(text(await call(c, "wait", { time: 50 }))).toBe("waited 50 ms");
      // dialog: the next prompt() is answered with the text given (the same report as `svc dialog`, since issue 42).
      expect(text(await call(c, "dialog", { accept: false, promptText: "x" }))).toBe("INVALID_ARGUMENT: promptText is only for accept (what an accepted prompt() returns)");
      expect(text(await call(c, "dialog", { accept: true, promptText: "forty-two" }))).toBe('no dialog is open; this browser will accept with "forty-two" its next dialog');
      expect(text(await call(c, "evaluate", { expression: "prompt('the answer?')" }))).toBe(JSON.stringify("forty-two"));
      // resize: the page's own window size.
      expect(text(await call(c, "resize", { width: 700, height: 500 }))).toBe("viewport 700x500");
      expect(text(await call(c, "evaluate", { expression: "innerWidth + 'x' + innerHeight" }))).toBe(JSON.stringify("700x500"));
      // upload and drag on their fixtures, read in the page.
      await call(c, "navigate", { url: world.server.url("controls.html") });
      const controls = text(await call(c, "snapshot", { interactive: true }));
      const up = await call(c, "upload", { target: refOf(controls, "button", "CV"), files: [join(ROOT, "package.json")] });
      expect(up.isError, text(up)).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "document.querySelector('#chosen').textContent" }))).toMatch(/package\.json \(\d+ bytes\)/);
      // focus (the CLI's verb, a tool of its own since issue 42), and the scrolls the CLI has beyond screens: pixels.
      const focused = await call(c, "focus", { target: refOf(controls, "textbox", "Focus me") });
      expect(focused.isError, text(focused)).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "document.activeElement.id" }))).toBe(JSON.stringify("focus-me"));
      const scrolled = await call(c, "scroll", { to: "120px" });
      expect(text(scrolled)).toMatch(/^scrolled 120px: page at x 0, y 120 \(was x 0, y 0\)/);
      expect(text(await call(c, "evaluate", { expression: "scrollY" }))).toBe("120");
      await call(c, "navigate", { url: world.server.url("drag.html") });
      const drag = text(await call(c, "snapshot", { interactive: true }));
      const dragged = await call(c, "drag", { from: refOf(drag, "button", "Drag me"), to: refOf(drag, "region", "Drop zone") });
      expect(dragged.isError, text(dragged)).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "document.querySelector('#result').textContent" }))).toBe(JSON.stringify("dropped: drag-source"));
      // console and errors: what the console fixture logged and threw at load, read from its tab.
      await call(c, "navigate", { url: world.server.url("console.html") });
      await call(c, "wait", { text: "Console" });
      let logged = "";
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && !/svc-uncaught-marker/.test(logged); ) logged = text(await call(c, "errors", {}));
      expect(logged).toMatch(/uncaught: Error: svc-uncaught-marker at thrower/);
      expect(logged).toMatch(/unhandled rejection: Error: svc-rejection-marker/);
      const consoled = text(await call(c, "console", {}));
      expect(consoled).toMatch(/log {3}svc-load-marker text 42 \{a: 1, b: "two"\}/);
      expect(text(await call(c, "console", { level: "warn" }))).toMatch(/^\S+ tab \d+ warn {2}svc-warn-marker \(/);
      expect(text(await call(c, "console", { level: "warn", clear: true }))).toMatch(/cleared$/);
      expect(text(await call(c, "console", {}))).toBe("no console messages in the current tab");
      // trace_start / trace_stop: a file the Performance panel opens, and its summary with the page's long task.
      expect((await call(c, "trace_start", { maxSizeMb: 0 })).isError).toBe(true);
      expect(text(await call(c, "trace_start", { maxSizeMb: 50 }))).toBe("tracing every tab (at most 50 MB); trace_stop ends it");
      expect(text(await call(c, "trace_start", {}))).toMatch(/^STATE_ERROR: a trace is already running/);
      await call(c, "navigate", { url: world.server.url("long-task.html") });
      expect((await call(c, "wait", { target: "#big[data-done=yes]", state: "visible" })).isError).toBeFalsy();
      const traced = text(await call(c, "trace_stop", {}));
      expect(traced).toMatch(/long tasks \(> 50 ms\): [1-9]\d*, longest [\d.]+ ms/);
      const tracePath = /^trace saved: (\S+) \(/.exec(traced)![1]!;
      expect(Array.isArray(JSON.parse(readFileSync(tracePath, "utf8")).traceEvents)).toBe(true);
      rmSync(dirname(tracePath), { recursive: true, force: true });
      expect(text(await call(c, "trace_stop", {}))).toMatch(/^STATE_ERROR: no trace is running/);
      // The categories the CLI takes, checked the same way; the filmstrip of the current tab.
      expect(text(await call(c, "trace_start", { categories: "a b" }))).toMatch(/^INVALID_ARGUMENT: invalid categories: "a b" is not a category name/);
      expect(text(await call(c, "trace_start", { categories: "toplevel,blink.user_timing", screenshots: true }))).toBe("tracing with screenshots of the current tab (at most 100 MB); trace_stop ends it");
      await call(c, "navigate", { url: world.server.url("long-task.html") });
      expect((await call(c, "wait", { target: "#big[data-done=yes]", state: "visible" })).isError).toBeFalsy();
      const stoppedText = text(await call(c, "trace_stop", {}));
      const chosen = /^trace saved: (\S+) \(/.exec(stoppedText)?.[1] ?? expect.fail(stoppedText);
      const chosenEvents = (JSON.parse(readFileSync(chosen, "utf8")) as { traceEvents: Array<{ cat?: string }> }).traceEvents;
      rmSync(dirname(chosen), { recursive: true, force: true });
      expect(chosenEvents.some((e) => e.cat?.includes("devtools.screenshot"))).toBe(true);
      expect(chosenEvents.some((e) => e.cat === "toplevel")).toBe(true);
      expect(chosenEvents.some((e) => e.cat === "devtools.timeline")).toBe(false);
      // pdf: an embedded application/pdf resource.
      const printed = (await call(c, "pdf", { format: "Letter" })) as { content: Array<{ type: string; resource?: { mimeType: string; blob: string } }> };
      const pdfRes = printed.content.find((x) => x.type === "resource")?.resource;
      expect(pdfRes?.mimeType).toBe("application/pdf");
      expect(Buffer.from(pdfRes!.blob, "base64").subarray(0, 5).toString("latin1")).toBe("%PDF-");
      // The same capability as `svc pdf` (issue 42): its line first, its check in its words.
      expect(printed.content[0]).toEqual({ type: "text", text: expect.stringMatching(new RegExp(`^PDF of \\S+: ${Buffer.from(pdfRes!.blob, "base64").length} bytes, Letter$`)) });
      expect(text(await call(c, "pdf", { format: "A3" }))).toBe('INVALID_ARGUMENT: format: must be A4 or Letter, got "A3"');
      // route / unroute: the page's own fetch gets the made-up answer, then a failure, then the real file again.
      expect(text(await call(c, "route", { pattern: "**/fetch/data.json", status: 201, body: '{"mocked":true}' }))).toMatch(/^routed \*\*\/fetch\/data\.json → 201, 15 byte body in \d+ tabs?; routes now:\n/);
      await call(c, "navigate", { url: world.server.url("routed.html") });
      expect(text(await call(c, "evaluate", { expression: "loaded" }))).toBe(JSON.stringify('201 {"mocked":true}'));
      await call(c, "route", { pattern: "**/fetch/data.json", abort: true });
      await call(c, "navigate", { url: world.server.url("routed.html") });
      expect(JSON.parse(text(await call(c, "evaluate", { expression: "loaded" })))).toMatch(/^failed: TypeError/);
      expect(text(await call(c, "route", { pattern: "x", abort: true, status: 200 }))).toMatch(/^INVALID_ARGUMENT: abort goes alone: an aborted request gets no body, status, headers or contentType/);
      // The same checks as `svc network route` (issue 42), named as the tool names them; the list is a tool too.
      expect(text(await call(c, "route", { pattern: "x" }))).toBe("INVALID_ARGUMENT: give body, status, headers or contentType (a response), or abort");
      expect(text(await call(c, "route", { pattern: "x", headers: { "Bad Name": "1" } }))).toMatch(/^INVALID_ARGUMENT: invalid headers: header name "Bad Name"/);
      expect(text(await call(c, "route", { pattern: "x", status: 99 }))).toBe("INVALID_ARGUMENT: status: expected an HTTP status from 100 to 599");
      // The body's bound counts UTF-8 bytes, not characters: 500,001 "é" are 1,000,002 bytes.
      expect(text(await call(c, "route", { pattern: "x", body: "é".repeat(500_001) }))).toBe("INVALID_ARGUMENT: body: larger than 1000000 bytes of UTF-8");
      expect(text(await call(c, "route", { pattern: "**/x.json", status: 418, headers: { "X-Mock": "yes" } }))).toMatch(/^routed \*\*\/x\.json → 418, 0 byte body, headers X-Mock in \d+ tabs?; routes now:\n/);
      expect(text(await call(c, "routes", {})).split("\n")).toEqual(["PATTERN MATCHES RESPONSE", "**/fetch/data.json glob abort (blocked by client)", "**/x.json glob 418, 0 byte body, headers X-Mock"]);
      expect(text(await call(c, "unroute", { pattern: "**/x.json" }))).toMatch(/^removed 1 route; routes now:\n {2}\*\*\/fetch\/data\.json → abort/);
      expect(text(await call(c, "unroute", { pattern: "**/x.json" }))).toBe('INVALID_ARGUMENT: invalid pattern: this browser has no route "**/x.json"');
      expect(text(await call(c, "unroute", {}))).toMatch(/^removed 1 route; routes now:\n {2}\(none\)$/);
      await call(c, "navigate", { url: world.server.url("routed.html") });
      expect(JSON.parse(text(await call(c, "evaluate", { expression: "loaded" })))).toMatch(/^200 /);
      expect(text(await call(c, "routes", {}))).toBe("this browser has no routes");
      // network_requests / network_request: the tab's own fetch of the real file, its body as the page got it.
      const listedReqs = text(await call(c, "network_requests", { filter: "data.json" }));
      const real = listedReqs.split("\n").filter((l) => / 200 Fetch /.test(l)).at(-1)!;
      expect(real).toMatch(/^r\d+ GET 200 Fetch http:\/\/\S+\/fetch\/data\.json \d+ ms$/);
      const detail = text(await call(c, "network_request", { id: real.split(" ")[0]!, body: true }));
      expect(detail).toMatch(/response headers:\n[\s\S]*body \(\d+ bytes\):\n\{"message":"hello from data\.json"/);
      // The same detail as `svc network request`: status, timing, the tab it was made in.
      expect(detail).toMatch(/^r\d+ GET http:\/\/\S+\/fetch\/data\.json\nstatus: 200 OK .* tab: \d+\nstarted: .*\ntiming: /);
      expect(text(await call(c, "network_request", { id: "r999999" }))).toMatch(/^INVALID_ARGUMENT: id: no request r999999/);
      expect(text(await call(c, "network_requests", { filter: "nothing-like-this" }))).toBe('no requests in the current tab whose URL contains "nothing-like-this"');
      // emulate: a device (by Playwright's name), dark mode, a time zone and a locale, as the page itself reports them; in a later tab too; null and reset clear.
      const emulated = text(await call(c, "emulate", { device: "iPhone 15 Pro", media: "dark", timezone: "Asia/Tokyo", locale: "de-DE" }));
      expect(emulated).toMatch(/^emulating device, media, timezone, locale in \d+ tabs?\n/);
      const seen = JSON.parse(emulated.split("the current tab reports: ")[1]!);
      // (a page without a viewport meta tag lays out 980 px wide on a phone, as on the real one)
      expect(seen).toMatchObject({ screen: "393x852", scale: 3, touch: true, language: "de-DE", timezone: "Asia/Tokyo", dark: true });
      expect(seen.userAgent).toMatch(/iPhone/);
      await call(c, "tabs", { action: "new", url: world.server.url("steps.html") });
      expect(JSON.parse(text(await call(c, "evaluate", { expression: "({ tz: Intl.DateTimeFormat().resolvedOptions().timeZone, dark: matchMedia('(prefers-color-scheme: dark)').matches, w: screen.width })" })))).toEqual({ tz: "Asia/Tokyo", dark: true, w: 393 });
      const lighter = JSON.parse(text(await call(c, "emulate", { media: null })).split("the current tab reports: ")[1]!);
      expect(lighter).toMatchObject({ dark: false, timezone: "Asia/Tokyo" });
      expect(text(await call(c, "emulate", { device: "Nokia 3310" }))).toMatch(/^INVALID_ARGUMENT: invalid device: unknown device "Nokia 3310"; near: [^;]+ \(\d+ known/);
      const reset = text(await call(c, "emulate", { reset: true }));
      expect(reset).toMatch(/^emulating nothing/);
      expect(JSON.parse(reset.split("the current tab reports: ")[1]!)).toMatchObject({ touch: false, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
      // close: the browser ends; the next tool starts a fresh one (on about:blank).
      expect((await call(c, "close")).isError).toBeFalsy();
      expect(text(await call(c, "evaluate", { expression: "location.href" }))).toBe(JSON.stringify("about:blank"));
    } finally {
      await c.close();
    }
    await expectNoChrome(world.sb.tmp);
  }, 180_000);
});
