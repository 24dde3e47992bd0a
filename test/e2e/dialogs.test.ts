/**
 * JavaScript dialogs never block: each is answered as it opens (dismiss unless chosen), so goto, extract, act and
 * agent steps after one finish promptly; each is in history and log, and the agent's next step hears of it and may
 * choose the next answer. The fixture pages show what they got back (confirm's value, prompt's text, the confirm
 * loop's count).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { DialogHandler, STORM_BURST, STORM_SPACING_MS, type HandledDialog } from "../../src/browser/dialogs.js";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import type { HistoryEntry } from "../../src/records.js";
import type { Service } from "../../src/service.js";
import { action, makeService, waitFor } from "../support/browser.js";
import type { FakeReply } from "../support/fake-model.js";
import { inPage, logSink, useModelService, useModelWorld, withService, WIRES } from "../support/models.js";
import { assertBuilt, sandbox, svc as cli, type Sandbox } from "../cli/helpers.js";
import { eventLog, step, stepRequests, type Step } from "./agent-support.js";

const world = useModelWorld();
const log = logSink();
const env = useModelService(() => ({ model: WIRES[0]!.model(world.fake), logger: log.logger, verbose: 1 }));
/** Bounds that only a blocked session would reach (today it waits for an outer 90 s timeout). */
const PROMPTLY = 8000;

const text = (svc: Service, id: string) => inPage<string>(svc.page, `document.getElementById(${JSON.stringify(id)}).textContent`);
const dialogsIn = async (svc: Service): Promise<HistoryEntry[]> => (await svc.history).filter((e) => e.method === "dialog");
/** Opening a page is not what these tests time: its bound only catches a hang (the suite runs on a loaded machine). */
const open = (svc: Service, path: string) => svc.page.goto(world.server.url(path), { timeout: 30_000 });

/** `work` settles within PROMPTLY ms (else the test fails here, naming what hung). */
async function promptly<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${PROMPTLY} ms`)), PROMPTLY)));
  try {
    return await Promise.race([work, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe("the dialogPolicy option", () => {
  it("is validated, naming the field", () => {
    for (const bad of ["maybe", { action: "ok" }, { action: "accept", promptText: 5 }, { action: "accept", extra: 1 }]) {
      expect(() => makeService({ dialogPolicy: bad as never })).toThrow(ServiceInvalidArgumentError);
      expect(() => makeService({ dialogPolicy: bad as never })).toThrow(/dialogPolicy/);
    }
  });
});

describe("an alert", () => {
  it("while the page loads: goto, extract and act(action) after it finish promptly; history and log record it", async () => {
    const svc = env.svc;
    const before = (await svc.history).length;
    await promptly("goto", open(svc, "alert-once.html"));
    expect(await text(svc, "result")).toBe("after alert: Welcome! This page alerts once.");
    const page = await promptly("extract", svc.extract());
    expect(page.pageText).toMatch(/Alerts shown: 1/);

    await promptly("act", svc.act(action("click", "#alert-button"), { timeout: PROMPTLY }));
    expect(await text(svc, "result")).toBe("after alert: You clicked the alert button.");
    expect(await text(svc, "alerts")).toBe("2");

    const history = (await svc.history).slice(before);
    const dialogs = history.filter((e) => e.method === "dialog");
    expect(dialogs.map((d) => d.parameters)).toEqual([
      { type: "alert", message: "Welcome! This page alerts once.", url: world.server.url("alert-once.html") },
      { type: "alert", message: "You clicked the alert button.", url: world.server.url("alert-once.html") },
    ]);
    expect(dialogs.map((d) => d.result)).toEqual([
      { accepted: false, by: "policy" },
      { accepted: false, by: "policy" },
    ]);
    // In the order it happened: the dialog of the click before the act's own entry.
    expect(history.map((e) => e.method)).toEqual(["dialog", "navigate", "extract", "dialog", "act"]);
    expect(log.lines.filter((l) => l.category === "dialog").map((l) => l.message)).toContain('the page showed an alert: "Welcome! This page alerts once."; dismissed');
  });

  it("that opens later, between operations: the next ones are not held", async () => {
    const svc = env.svc;
    await promptly("goto", open(svc, "alert-once.html?alert=later&ms=300"));
    await waitFor(async () => (await dialogsIn(svc)).some((d) => (d.parameters as { message: string }).message === "A late alert."), PROMPTLY);
    expect((await promptly("extract", svc.extract())).pageText).toMatch(/Alerts shown: 1/);
  });

  it("in a popup and in a cross-origin iframe: answered too, each once", async () => {
    const svc = env.svc;
    await open(svc, "alert-once.html?alert=none");
    const count = (await dialogsIn(svc)).length;
    const framed = world.server.url("alert-once.html?alert=load&from=frame", "127.0.0.1");
    await inPage(svc.page, `(() => { const f = document.createElement("iframe"); f.src = ${JSON.stringify(framed)}; document.body.append(f); return true; })()`);
    await waitFor(async () => (await dialogsIn(svc)).length === count + 1, PROMPTLY);
    const popup = world.server.url("alert-once.html?alert=load&from=popup");
    await svc.act(action("click", "#open-popup"));
    await waitFor(async () => (await dialogsIn(svc)).length === count + 2, PROMPTLY);
    await new Promise((r) => setTimeout(r, 300)); // a second answer to the same dialog would show up by now
    const urls = (await dialogsIn(svc)).slice(count).map((d) => (d.parameters as { url: string }).url);
    expect(urls).toEqual([framed, popup]);
    expect(await promptly("extract in the popup", svc.extract())).toMatchObject({ pageText: expect.stringMatching(/Alerts shown: 1/) });
    await svc.page.close();
  });
});

describe("confirm, prompt and beforeunload", () => {
  it("dismissed by default: confirm() is false, prompt() is null", async () => {
    const svc = env.svc;
    await open(svc, "alert-once.html?alert=none");
    await promptly("act", svc.act(action("click", "#confirm-button")));
    expect(await text(svc, "result")).toBe("confirm: false");
    await promptly("act", svc.act(action("click", "#prompt-button")));
    expect(await text(svc, "result")).toBe("prompt: null");
  });

  it('dialogPolicy "accept": confirm() is true, prompt() returns its default or the policy\'s promptText', async () => {
    await withService({ dialogPolicy: "accept" }, async (svc) => {
      await open(svc, "alert-once.html?alert=none");
      await svc.act(action("click", "#confirm-button"));
      expect(await text(svc, "result")).toBe("confirm: true");
      await svc.act(action("click", "#prompt-button"));
      expect(await text(svc, "result")).toBe('prompt: "old name"');
      expect((await dialogsIn(svc)).map((d) => d.result)).toEqual([
        { accepted: true, by: "policy" },
        { accepted: true, promptText: "old name", by: "policy" },
      ]);
    });
    await withService({ dialogPolicy: { action: "accept", promptText: "Ada" } }, async (svc) => {
      await open(svc, "alert-once.html?alert=none");
      await svc.act(action("click", "#prompt-button"));
      expect(await text(svc, "result")).toBe('prompt: "Ada"');
    });
  });

  it("beforeunload is accepted, so leaving the page proceeds (with either policy)", async () => {
    const svc = env.svc;
    await open(svc, "alert-once.html?alert=none&beforeunload=1");
    await svc.act(action("click", "#touch")); // Chrome asks before unload only after a user gesture
    const count = (await dialogsIn(svc)).length;
    const r = await promptly("goto away", open(svc, "forms.html"));
    expect(r.url).toBe(world.server.url("forms.html"));
    const [entry] = (await dialogsIn(svc)).slice(count);
    expect(entry).toMatchObject({ parameters: { type: "beforeunload" }, result: { accepted: true, by: "policy" } });
  });
});

describe("a confirm() loop", () => {
  it("act and extract go on while the page keeps asking", async () => {
    const svc = env.svc;
    await open(svc, "alert-loop.html?every=100");
    const filled = await promptly("act fill", svc.act(action("fill", "#note", ["hello"]), { timeout: PROMPTLY }));
    const clicked = await promptly("act click", svc.act(action("click", "#save"), { timeout: PROMPTLY }));
    // What svc reported beside what the page shows, so that a failure tells a refused act from a false success.
    const seen = { filled: filled.success, clicked: clicked.success, note: await inPage<string>(svc.page, `document.getElementById("note").value`), result: await text(svc, "result") };
    expect(seen, JSON.stringify({ filled, clicked })).toEqual({ filled: true, clicked: true, note: "hello", result: "saved: hello" });
    await waitFor(async () => Number(await text(svc, "asks")) >= 3, PROMPTLY);
    expect((await promptly("extract", svc.extract())).pageText).toMatch(/Questions asked: \d+/);
    expect((await dialogsIn(svc)).filter((d) => (d.parameters as { message: string }).message === "Stay on this page?").length).toBeGreaterThanOrEqual(3);
    // Ends the loop, so the next test leaves a quiet page (leaving a looping page is tested below).
    svc.context.dialogs.answerNext({ accept: true });
    await waitFor(async () => /^confirmed after/.test(await text(svc, "result")), PROMPTLY);
  });

  it("goto away from it finishes: a question the page being left asks after the navigation started does not hold it", async () => {
    const svc = env.svc;
    // Asking every 20 ms, the page often asks between Page.navigate and the commit: Chrome then cannot
    // answer that dialog ("Not attached to an active page") and the navigation never commits, unless
    // svc starts it again (page.ts). Each try is bounded well below the 30 s navigation timeout.
    for (let i = 0; i < 8; i++) {
      await open(svc, "alert-loop.html?every=20");
      await waitFor(async () => Number(await text(svc, "asks")) >= 2, PROMPTLY);
      await promptly(`goto #${i + 1}`, svc.page.goto(world.server.url("alert-once.html?alert=none"), { timeout: PROMPTLY }));
      expect(svc.page.url()).toBe(world.server.url("alert-once.html?alert=none"));
    }
  });

  it("the agent is told of the dialogs at its next step and accepts the next one with its dialog tool", async () => {
    const svc = env.svc;
    const earlier = (await dialogsIn(svc)).length;
    await open(svc, "alert-loop.html?every=150");
    await waitFor(async () => Number(await text(svc, "asks")) >= 2, PROMPTLY);
    // Wait (the page asks meanwhile), accept the next question, wait for it, done.
    const steps: Step[] = [step("wait", { ms: 400 }), step("dialog", { action: "accept" }), step("wait", { ms: 500 }), step("done", { message: "confirmed", success: true })];
    let i = 0;
    const reply: FakeReply = (req, auto) => (req.operation === "agent_step" ? steps[Math.min(i++, steps.length - 1)]! : { kind: "object", value: auto() });
    world.fake.script(...Array.from({ length: 8 }, () => reply));
    const agent = svc.agent();
    const events = eventLog();
    agent.subscribe(events.listener);
    const result = await promptly("agent", agent.execute({ instruction: "stay on the page", maxSteps: 5 }));
    expect(result.completed).toBe(true);
    expect(await text(svc, "result")).toMatch(/^confirmed after \d+ questions$/);

    const prompts = stepRequests(world.fake);
    expect(prompts[0]!.systemText).toMatch(/- dialog: choose how the page's NEXT JavaScript dialog/);
    // Step 2 hears of the questions asked during step 1's wait; a later step of the one its choice answered.
    expect(prompts[1]!.userText).toMatch(/Dialogs since the last step:\n(- \(\d+ earlier dialogs not shown\)\n)?(- the page showed a confirm: "Stay on this page\?"; dismissed\n)+Page: /);
    expect(prompts.slice(2).filter((p) => /- the page showed a confirm: "Stay on this page\?"; accepted\n/.test(p.userText))).toHaveLength(1);
    expect(result.actions[1]).toMatchObject({ type: "dialog", ok: true, result: "the next dialog will be accepted" });
    const logs = events.events.flatMap((e) => (e.type === "log" ? [e.message] : []));
    expect(logs).toContain('the page showed a confirm: "Stay on this page?"; accepted');
    const accepted = (await dialogsIn(svc)).slice(earlier).filter((d) => (d.parameters as { type: string }).type === "confirm" && (d.result as { accepted: boolean }).accepted);
    expect(accepted.map((d) => d.result)).toEqual([{ accepted: true, by: "choice" }]);
  });
});

describe("a page that opens dialogs without end", () => {
  it("is answered at once for its first dialogs, then one dialog per STORM_SPACING_MS (a hundred a second kept Chrome busy)", async () => {
    await withService({}, async (svc) => {
      const at: number[] = [];
      svc.context.dialogs.onDialog(() => void at.push(performance.now()));
      await open(svc, "dialog-forever.html?start=click");
      // The click starts the loop; its own checks after the press cannot run while the page is held.
      void svc.act(action("click", "#go"), { timeout: 3000 }).catch(() => {});
      await waitFor(() => at.length >= STORM_BURST + 4);
      const gaps = at.slice(STORM_BURST, STORM_BURST + 4).map((t, i) => t - at[STORM_BURST - 1 + i]!);
      // A lower bound only: a loaded machine makes the gaps longer, never shorter (without the gate: ~10 ms).
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(STORM_SPACING_MS - 100);
    });
  });
});

describe("handing dialogs over (a CLI command detaching from its session)", () => {
  it("after release() the Service answers no dialog: another client answers it, and the Service records none", async () => {
    await withService({}, async (svc) => {
      // A second client answering by its own policy, as a CLI session's dialog keeper does.
      const keeper = await CdpConnection.connect((await svc.init()).sessionUrl);
      try {
        const kept: HandledDialog[] = [];
        const keeperDialogs = new DialogHandler({ action: "accept" });
        keeperDialogs.onDialog((d) => void kept.push(d));
        const target = (await keeper.root.send("Target.getTargets")).targetInfos.find((t) => t.type === "page" && t.url === "about:blank");
        expect(target).toBeDefined();
        const { sessionId } = await keeper.root.send("Target.attachToTarget", { targetId: target!.targetId, flatten: true });
        const page = keeper.session(sessionId)!;
        keeperDialogs.watch(page, { yieldMs: 300 });
        await page.send("Page.enable");

        await svc.context.dialogs.release();
        // No await: alert() blocks the evaluation until someone answers.
        void page.send("Runtime.evaluate", { expression: 'alert("After the hand-over.")' }).catch(() => {});
        await waitFor(() => kept.length > 0, 30_000, 50);
        expect(kept.map((d) => [d.message, d.accepted])).toEqual([["After the hand-over.", true]]);
        expect(await dialogsIn(svc)).toEqual([]);
      } finally {
        await keeper.close();
      }
    });
  });
});

describe("the CLI: a dialog that opens between two commands", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    assertBuilt();
    sb = sandbox();
    expect((await cli(["sessions", "start"], sb.env)).code).toBe(0);
  });
  afterAll(async () => {
    if (!sb) return;
    await cli(["sessions", "end", "--all"], sb.env);
    sb.cleanup();
  });
  /** Bounded well below the 180 s protocol timeout a blocked attach would end with (not tighter: a loaded machine). */
  const run = (args: string[], env = sb.env) => cli(args, env, { timeoutMs: 60_000 });
  /** The messages of the dialogs the session's history records (the keeper writes each one it answers). */
  const recorded = async () => {
    const history = JSON.parse((await run(["--json", "history"])).stdout) as { entries: HistoryEntry[] };
    return history.entries.filter((e) => e.method === "dialog").map((e) => (e.parameters as { message: string }).message);
  };

  it("`sessions start` returns with the keeper watching: a dialog that opens right after, with no command attached, is answered", async () => {
    const own = sandbox();
    try {
      const started = await run(["--json", "sessions", "start"], own.env);
      expect(started.code, started.stderr).toBe(0);
      const { session } = JSON.parse(started.stdout) as { session: { id: string; wsEndpoint: string } };
      // Not through svc: a client that opens a page and watches no dialog (a user's Playwright, say).
      const other = await CdpConnection.connect(session.wsEndpoint);
      try {
        await other.root.send("Target.createTarget", { url: world.server.url("alert-once.html") });
      } finally {
        await other.close();
      }
      await waitFor(async () => {
        const history = JSON.parse((await run(["--json", "history", "--session", session.id], own.env)).stdout) as { entries: HistoryEntry[] };
        return history.entries.some((e) => e.method === "dialog" && (e.parameters as { message: string }).message === "Welcome! This page alerts once.");
      }, 30_000, 100);
    } finally {
      await run(["sessions", "end", "--all"], own.env);
      own.cleanup();
    }
  });

  it("no command is held (the session's keeper answers it) and the history records it", async () => {
    expect((await run(["goto", world.server.url("alert-once.html?alert=later&ms=800")])).code).toBe(0);
    // The alert opens after the goto ended, while no command runs: the keeper answers and records it.
    await waitFor(async () => (await recorded()).includes("A late alert."), 30_000, 100);
    const after = await run(["extract"]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/Alerts shown: 1/);

    expect((await run(["goto", world.server.url("alert-loop.html?every=100")])).code).toBe(0);
    await waitFor(async () => (await recorded()).includes("Stay on this page?"), 30_000, 100);
    const loop = await run(["extract"]);
    expect(loop.code, loop.stderr).toBe(0);
    expect(loop.stdout).toMatch(/Questions asked: \d+/);
  });
});
