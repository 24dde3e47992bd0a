/**
 * Variables in an agent run (docs/wire-formats.md "Variables"): the page gets the values, nothing else does. The values — plain,
 * percent-encoded and form-encoded (the order form is submitted with GET, so they land in the next page's
 * URL) — are in no request to the model, no event, no history entry, no log line, no inference log and no
 * agent cache file. Through each wire format.
 */
import { describe, expect, it } from "vitest";
import { textIn } from "../support/browser.js";
import { everythingSent, filesUnder, logSink, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";
import { eventLog, scriptTimes, siteBrain, step } from "./agent-support.js";

const world = useModelWorld();
const tempDir = useTempDirs();

const NAME = "Ada SECRET-Lovelace";
const EMAIL = "ada.secret+x@example.com";
const variables = { customer: { value: NAME, description: "the customer's full name" }, email: EMAIL };
const spellings = (v: string) => [v, encodeURIComponent(v), encodeURIComponent(v).replace(/%20/g, "+")];

describe.each(WIRES)("$label", (wire) => {
  const logs = logSink();
  const dirs = { cwd: "", cache: "" };
  const env = useModelService(
    () => ({ model: wire.model(world.fake), verbose: 2, logger: logs.logger, cacheDir: (dirs.cache = tempDir()), logInferenceToFile: true }),
    { cwd: () => (dirs.cwd = tempDir()) },
  );

  it("values reach the page only", async () => {
    const start = world.server.url("site/index.html");
    await env.svc.page.goto(start);
    scriptTimes(world.fake, siteBrain({ start }));
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    const result = await agent.execute({ instruction: "Order a Boston Fern for %customer% (%email%)", variables });
    expect(result.completed).toBe(true);

    // The page got the real values (the confirmation page echoes them, and its URL carries them encoded).
    expect(await textIn(env.svc.page, "#summary")).toBe(`${NAME} ordered 2 × Boston Fern, delivery: Express.`);
    expect(await textIn(env.svc.page, "#sent-to")).toBe(EMAIL);
    expect(env.svc.page.url()).toContain(encodeURIComponent(EMAIL));

    // The model was shown names, the masked page and masked URLs.
    const last = world.fake.requestsFor("agent_step").at(-1)!;
    expect(last.snapshot).toContain("%customer% ordered 2 × Boston Fern");
    expect(last.url).toContain("customer=%customer%&email=%email%");

    const places = {
      sent: everythingSent(world.fake),
      events: JSON.stringify(log.events),
      history: JSON.stringify(await env.svc.history),
      logs: logs.text(),
      inference: filesUnder(dirs.cwd).map((f) => f.text).join("\n"),
      cache: filesUnder(dirs.cache).map((f) => f.text).join("\n"),
    };
    expect(places.inference.length).toBeGreaterThan(0);
    expect(places.cache).toContain('"%customer%"');
    expect(places.events).toContain("%customer%");
    for (const [where, text] of Object.entries(places)) {
      for (const v of [...spellings(NAME), ...spellings(EMAIL)]) expect(text.includes(v), `${v} in ${where}`).toBe(false);
    }
  });

  it("a URL the agent opens with a variable: the page gets the value, history and events the name", async () => {
    const start = world.server.url("site/index.html");
    await env.svc.page.goto(start);
    world.fake.script(step("goto", { url: `${start}?who=%customer%` }), step("done", { message: "opened", success: true }));
    const agent = env.svc.agent();
    const log = eventLog();
    agent.subscribe(log.listener);
    await agent.execute({ instruction: "open the shop for %customer%", variables });
    expect(env.svc.page.url()).toContain(encodeURIComponent(NAME));
    const history = JSON.stringify(await env.svc.history);
    expect(history).toContain("who=%customer%");
    for (const text of [history, JSON.stringify(log.events), everythingSent(world.fake)]) for (const v of spellings(NAME)) expect(text).not.toContain(v);
  });
});
