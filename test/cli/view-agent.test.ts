/**
 * The live view with `svc agent` on a local session: an `--ask-human` question shows in the view (banner,
 * Continue, reply) and pressing Continue answers it (stdin closed: only the view can), the reply reaching the
 * next step; the terminal view prints the session's live-view URL when the session serves one.
 */
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSteps, step } from "../e2e/agent-support.js";
import { CHROMIUM, collect, hasPython, json, spawnSvc, svc, svcInPty, useModelWorld } from "./helpers.js";

const { server, fake, sb } = useModelWorld();
let viewer: Browser;

beforeAll(async () => {
  const started = await svc(["sessions", "start", "--idle-timeout", "10"], sb.env);
  if (started.code !== 0) throw new Error(`svc sessions start failed: ${started.stderr}`);
  viewer = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 60_000);
afterAll(async () => {
  await viewer?.close();
  await svc(["sessions", "end", "--all"], sb.env).catch(() => undefined);
});


const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);

describe("svc agent with the live view", () => {
  it("--ask-human: the question shows in the view and Continue answers it, with the reply", async () => {
    scriptSteps(fake, step("askHuman", { message: "log in as yourself" }), step("done", { message: "logged in", success: true }));
    const { url } = json<{ url: string }>((await svc(["--json", "view"], sb.env)).stdout);
    const view = await viewer.newPage({ viewport: { width: 1000, height: 700 } });
    await view.goto(url);
    await view.waitForSelector("img[data-svc-live][data-frames]", { timeout: 20_000 });
    expect(await view.locator("#ask").isHidden()).toBe(true);

    // stdin is closed at once: without the view nobody could answer.
    const run = collect(spawnSvc(["agent", "log in", "--url", server.url("forms.html"), "--ask-human", "--ask-human-timeout", "120"], sb.env), 120_000);
    await view.waitForSelector("#ask:not([hidden])", { timeout: 60_000 });
    expect(await view.locator("#ask-message").textContent()).toBe("The agent asks you: log in as yourself");
    await view.fill("#ask-reply", "done in the view");
    await view.click("[data-svc-continue]");
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`     or press Continue in the live view: ${url}\n`);
    const out = lines(r.stdout);
    expect(out.find((l) => l.type === "human_reply")).toMatchObject({ answered: true, reply: "done in the view" });
    expect(JSON.stringify(fake.requestsFor("agent_step")[1]!.body)).toContain("done in the view");
    // The answered question leaves the view.
    await view.waitForSelector("#ask", { state: "hidden" });
    await view.close();
  });

  it("a line on stdin still answers first; the view's banner is withdrawn", async () => {
    scriptSteps(fake, step("askHuman", { message: "solve the check" }), step("done", { message: "solved", success: true }));
    const { url } = json<{ url: string }>((await svc(["--json", "view"], sb.env)).stdout);
    const view = await viewer.newPage();
    await view.goto(url);
    await view.waitForSelector("img[data-svc-live][data-frames]", { timeout: 20_000 });
    const child = spawnSvc(["agent", "solve", "--url", server.url("forms.html"), "--ask-human"], sb.env);
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await view.waitForSelector("#ask:not([hidden])", { timeout: 60_000 });
    child.stdin!.end("from stdin\n");
    expect(await exited).toBe(0);
    expect(lines(stdout).find((l) => l.type === "human_reply")).toMatchObject({ answered: true, reply: "from stdin" });
    await view.waitForSelector("#ask", { state: "hidden" });
    await view.close();
  });

  it.skipIf(!hasPython)("at a terminal, the agent's view prints the session's live-view URL", async () => {
    scriptSteps(fake, step("done", { message: "nothing to do", success: true }));
    const { url } = json<{ url: string }>((await svc(["--json", "view"], sb.env)).stdout);
    const r = await svcInPty(["agent", "look", "--url", server.url("forms.html")], [], sb.env, 90_000);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`live view: ${url}`);
  });
});
