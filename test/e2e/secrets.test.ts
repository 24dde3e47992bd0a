/**
 * A session's secrets (issue 11): whole tokens only (`qty=2` leaves `GS-19286` alone, a selector's `p[1]` stays) and
 * nothing returned rewritten; a value given once is masked in every later model request, log and history, also when
 * the page shows it or a GET form put it in the URL; password fields become secrets and show a fixed mask; the
 * --record report holds no value.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRecorder } from "../../commands/model/record.js";
import { waitFor } from "../support/browser.js";
import { everythingSent, expectText, filesUnder, inPage, logSink, refOf, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { eventLog, step } from "./agent-support.js";

const world = useModelWorld();
const tempDir = useTempDirs();
const wire = WIRES[0]!;
const spellings = (v: string) => [v, encodeURIComponent(v), encodeURIComponent(v).replace(/%20/g, "+")];

function useSession() {
  const logs = logSink();
  const dirs = { cwd: "", cache: "" };
  const env = useModelService(
    () => ({ model: wire.model(world.fake), verbose: 2, logger: logs.logger, cacheDir: (dirs.cache = tempDir()), logInferenceToFile: true }),
    { cwd: () => (dirs.cwd = tempDir()) },
  );
  return {
    get svc() {
      return env.svc;
    },
    logs,
    dirs,
    inference: () => filesUnder(dirs.cwd).map((f) => f.text).join("\n"),
    cache: () => filesUnder(dirs.cache).map((f) => f.text).join("\n"),
  };
}

describe("whole tokens", () => {
  const s = useSession();

  it("x=1 and qty=2: selectors, order numbers, addresses and messages stay whole; the value itself is masked", async () => {
    const page = s.svc.page;
    await page.goto(world.server.url("secrets.html"));
    const variables = { x: "1", qty: "2" };
    const typed = await s.svc.act("please type %x% into the User field", { variables });
    expect(typed.actions).toEqual([expect.objectContaining({ selector: "xpath=/html/body/form/p[1]/input", method: "fill", arguments: ["%x%"] })]);
    expect(await inPage(page, `document.querySelector("#user").value`)).toBe("1");
    await expectText(page, "#log", "user: 1");
    const replayed = await s.svc.act("please type %x% into the User field", { variables });
    expect(replayed).toMatchObject({ cacheStatus: "HIT", message: "replayed 1 cached action(s)" });

    world.fake.script(step("done", { message: "Order GS-19286 is placed at 127.0.0.1:4285 for 1 user.", success: true }));
    const agent = s.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "read the order number", variables });
    // Returned as it is: never rewritten.
    expect(result.message).toBe("Order GS-19286 is placed at 127.0.0.1:4285 for 1 user.");

    // Written down: whole tokens only.
    const history = JSON.stringify(await s.svc.history);
    expect(history).toContain("xpath=/html/body/form/p[1]/input");
    expect(history).toContain("Order GS-19286 is placed at 127.0.0.1:4285 for %x% user.");
    expect(history).not.toContain("[%x%]");
    // A lone `1` is a whole token: the history's copy masks it (docs/models.md: short values mask every lone occurrence).
    expect(history).toContain("replayed %x% cached action(s)");
    const events = JSON.stringify(log.events);
    expect(events).toContain("Order GS-19286 is placed at 127.0.0.1:4285 for %x% user.");
    const cache = s.cache();
    expect(cache).toContain("xpath=/html/body/form/p[1]/input");
    expect(cache).not.toContain("[%x%]");
    // Sent to the model: the page's numbers intact, the typed value (echoed by the page) masked.
    const stepPrompt = world.fake.requestsFor("agent_step")[0]!;
    expect(stepPrompt.snapshot).toContain("Order GS-19286 is placed at 127.0.0.1:4285.");
    expect(stepPrompt.snapshot).toContain("user: %x%");
    expect(stepPrompt.snapshot).not.toMatch(/user: 1\b/);
  });
});

describe("session memory, URLs and password fields", () => {
  const s = useSession();
  const NICK = "Nick SECRET+42";
  const PASSWORD = "pw-LITERAL-77";

  it("a value given once, and a literal typed into a password field, are masked in every later request and record", async () => {
    const page = s.svc.page;
    await page.goto(world.server.url("secrets.html"));
    await s.svc.act("please type %nick% into the User field", { variables: { nick: { value: NICK, description: "the user" } } });
    expect(await inPage(page, `document.querySelector("#user").value`)).toBe(NICK);

    // The model writes a password out literally (no variable): svc sees it go into a password field.
    world.fake.script((req) => ({ ref: refOf(req, "textbox", "Password"), method: "fill", arguments: [PASSWORD], description: "the Password field", twoStep: false }));
    const filled = await s.svc.act("fill in the password");
    // Returned as it is (the caller's own result); the page has the value and echoes it.
    expect(filled.actions[0]!.arguments).toEqual([PASSWORD]);
    expect(await inPage(page, `document.querySelector("#pw").value`)).toBe(PASSWORD);
    await expectText(page, "#log", `pw: ${PASSWORD}`);
    const sentBefore = world.fake.requests.length;
    const inferenceBefore = s.inference().trim().split("\n").length;

    // The snapshot shows a fixed mask for the password field: neither the value nor its length.
    const { pageText } = await s.svc.extract();
    const pwLine = pageText.split("\n").find((l) => /textbox Password/.test(l));
    expect(pwLine).toMatch(/textbox Password: •{8}$/);

    // Plain calls, no variables: the form goes out by GET, the values land in the address and the page.
    await s.svc.act("please click the Sign in button");
    await waitFor(() => page.url().includes("user="));
    expect(page.url()).toContain(`user=${encodeURIComponent(NICK).replace(/%20/g, "+")}`);
    await expectText(page, "#welcome", `Welcome, ${NICK}.`);
    await s.svc.observe("find the User field");

    const later = world.fake.requests.slice(sentBefore);
    expect(later.length).toBe(2);
    const observed = later[1]!;
    expect(observed.url).toContain("user=%nick%&pw=%password%&qty=");
    expect(observed.snapshot).toContain("Welcome, %nick%.");
    const sentLater = later.map((r) => JSON.stringify(r.body)).join("\n");
    const allSent = everythingSent(world.fake);
    const inferenceLater = s.inference().trim().split("\n").slice(inferenceBefore).join("\n");
    const places = { sentLater, inferenceLater, history: JSON.stringify(await s.svc.history), logs: s.logs.text(), cache: s.cache() };
    expect(inferenceLater).toContain("%nick%");
    expect(places.history).toContain("%password%");
    for (const [where, text] of Object.entries(places)) {
      for (const v of [...spellings(NICK), PASSWORD]) expect(text.includes(v), `${v} in ${where}`).toBe(false);
    }
    // The variable's value never reached the model at all.
    for (const v of spellings(NICK)) expect(allSent.includes(v), `${v} sent`).toBe(false);
  });

  it("an agent run after them, with a --record report: no value in events, history, agent cache or report text", async () => {
    const page = s.svc.page;
    // The page still shows the name (the GET form's result page) and its address holds both values.
    expect(page.url()).toContain("user=");
    world.fake.script(step("goto", { url: page.url() }), step("done", { message: `Signed in as ${NICK}.`, success: true }));
    const agent = s.svc.agent();
    const log = eventLog();
    const dir = tempDir("svc-record-");
    const recorder = createRecorder(dir, () => page.screenshot());
    agent.subscribe(log.listener);
    agent.subscribe((e) => recorder.onEvent(e));
    const result = await agent.execute("open the page again and say who signed in");
    expect(result.message).toBe(`Signed in as ${NICK}.`);
    const report = readFileSync(await recorder.finish(), "utf8");
    expect(report).toContain("Signed in as %nick%.");
    expect(report).toMatch(/screenshots show the page as it was/i);
    const places = { events: JSON.stringify(log.events), history: JSON.stringify(await s.svc.history), cache: s.cache(), report, sent: everythingSent(world.fake) };
    expect(places.events).toContain("user=%nick%");
    for (const [where, text] of Object.entries(places)) {
      for (const v of [...spellings(NICK), PASSWORD]) expect(text.includes(v), `${v} in ${where}`).toBe(false);
    }
    expect(join(dir, "report.html")).toBeTruthy();
  });
});

describe("the agent types a literal password", () => {
  const s = useSession();
  const AGENT_PW = "agent PW+LITERAL 9";

  it("it is a secret from then on: later prompts, events, history, inference log and the agent cache; selectors stay whole", async () => {
    const page = s.svc.page;
    await page.goto(world.server.url("secrets.html"));
    world.fake.script(
      (req) => step("fillForm", { fields: [{ ref: refOf(req, "textbox", "User"), value: "agent-user" }, { ref: refOf(req, "textbox", "Password"), value: AGENT_PW }] }),
      (req) => step("perform", { ref: refOf(req, "button", "Sign in"), method: "click", arguments: [] }),
      step("done", { message: "signed in", success: true }),
    );
    const agent = s.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "sign in", variables: { x: "1" } });
    expect(result.completed).toBe(true);
    expect(page.url()).toContain(`pw=${encodeURIComponent(AGENT_PW).replace(/%20/g, "+")}`);

    const steps = world.fake.requestsFor("agent_step");
    expect(steps).toHaveLength(3);
    // The first reply wrote the literal; every request after it (the page echoes it, then the URL holds it) masks it.
    expect(steps[1]!.snapshot).toContain("pw: %password%");
    expect(steps[2]!.url).toContain("pw=%password%");
    const lines = s.inference().trim().split("\n");
    const places = {
      later: steps.slice(1).map((r) => JSON.stringify(r.body)).join("\n"),
      inference: lines.slice(1).join("\n"),
      history: JSON.stringify(await s.svc.history),
      run_end: JSON.stringify(log.events.filter((e) => e.type === "run_end" || e.type === "page")),
      cache: s.cache(),
    };
    expect(places.cache).toContain("p[2]/input");
    expect(places.cache).not.toContain("[%x%]");
    for (const [where, text] of Object.entries(places)) for (const v of spellings(AGENT_PW)) expect(text.includes(v), `${v} in ${where}`).toBe(false);
  });
});

describe("password fields in any frame", () => {
  const s = useSession();

  it("a value filled into a password field of a cross-origin iframe is a secret; text in a plain field is not", async () => {
    const page = s.svc.page;
    await page.goto(world.server.url("secrets-frame.html"));
    await page.deepLocator("#login >> #pw").fill("framed-PW-5150");
    await page.deepLocator("#login >> #user").fill("framed-user");
    await page.locator("#search").fill("plain query");
    await expectText(page, "#log", "user: framed-user", ["#login"]);
    expect(s.svc.secrets.has("framed-PW-5150")).toBe(true);
    expect(s.svc.secrets.has("framed-user")).toBe(false);
    expect(s.svc.secrets.has("plain query")).toBe(false);
  });
});

