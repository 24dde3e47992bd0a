/**
 * Variables never leak (docs/wire-formats.md "Variables"): the model is shown `%name%` and the description, the
 * value is typed into the page locally, and the value is in no request to the model (body, headers, path),
 * not in history, not in the ActResult, not in any log line (verbose 2, custom logger), not in the action
 * cache, not in the inference log. Through each wire format.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { everythingSent, expectText, filesUnder, inPage, logSink, useModelService, useModelWorld, useTempDirs, WIRES } from "../support/models.js";

const world = useModelWorld();
const tempDir = useTempDirs();

const SECRET = "hunter2-SECRET";
const NAME_SECRET = "Ada-SECRET-name";
const variables = { password: { value: SECRET, description: "the password" }, fullName: NAME_SECRET };

describe.each(WIRES)("$label", (wire) => {
  const logs = logSink();
  const dirs = { cwd: "", cache: "" };
  const env = useModelService(
    () => ({ model: wire.model(world.fake), verbose: 2, logger: logs.logger, cacheDir: (dirs.cache = tempDir()), logInferenceToFile: true }),
    { cwd: () => (dirs.cwd = tempDir()) },
  );
  const page = () => env.svc.page;
  const everything = async (results: unknown[]) => ({
    sent: everythingSent(world.fake),
    history: JSON.stringify(await env.svc.history),
    results: JSON.stringify(results),
    logs: logs.text(),
    cache: filesUnder(dirs.cache).map((f) => f.text).join("\n"),
    inference: filesUnder(dirs.cwd).map((f) => f.text).join("\n"),
  });

  it("act with {value, description} and primitive variables: the page gets the values, nothing else does", async () => {
    await page().goto(world.server.url("forms.html?case=variables"));
    const typed = await env.svc.act("please type %password% into the Password field", { variables });
    expect(typed.success).toBe(true);
    expect(await inPage(page(), `document.querySelector("#password").value`)).toBe(SECRET);
    // forms.html echoes every input into #log: the secret is now page text, too.
    await expectText(page(), "#log", `password: ${SECRET}`);
    expect(typed.actions).toEqual([expect.objectContaining({ method: "fill", arguments: ["%password%"] })]);
    expect(typed.cacheStatus).toBe("MISS");

    const named = await env.svc.act("please type %fullName% into the Full name field", { variables });
    expect(await inPage(page(), `document.querySelector("#name").value`)).toBe(NAME_SECRET);

    // More calls with the same variables while the values are on the page (in #log and the field values).
    const observed = await env.svc.observe("find the Password field", { variables });
    const clicked = await env.svc.act("please click the Subscribe to newsletter checkbox", { variables });
    await expectText(page(), "#log", "subscribe: true");
    // The same act again: replayed from the cache, the value substituted locally again.
    await inPage(page(), `document.querySelector("#password").value = ""; true`);
    const replayed = await env.svc.act("please type %password% into the Password field", { variables });
    expect(replayed.cacheStatus).toBe("HIT");
    expect(await inPage(page(), `document.querySelector("#password").value`)).toBe(SECRET);

    // What the model was told: names and descriptions.
    const acts = world.fake.requestsFor("act");
    expect(acts).toHaveLength(3);
    expect(acts[0]!.variables.sort()).toEqual(["fullName", "password"]);
    expect(acts[0]!.userText).toContain("Variables: %password% (the password), %fullName%");
    expect(acts[0]!.instruction).toBe("please type %password% into the Password field");
    for (const r of world.fake.requests) expect(r.format).toBe(wire.format);

    const seen = await everything([typed, named, observed, clicked, replayed]);
    // Each probe must have something in it, or "no secret" would prove nothing.
    expect(seen.sent.length).toBeGreaterThan(1000);
    expect(seen.history).toContain("%password%");
    expect(seen.logs).toContain("model call");
    expect(seen.cache).toContain('"%password%"');
    expect(seen.inference).toContain("%password%");
    expect(existsSync(join(dirs.cwd, "svc-inference.jsonl"))).toBe(true);
    for (const [where, text] of Object.entries(seen)) {
      expect(text, `${SECRET} leaked into ${where}`).not.toContain(SECRET);
      expect(text, `${NAME_SECRET} leaked into ${where}`).not.toContain(NAME_SECRET);
    }
    // Nothing of the secret's distinctive part either (e.g. partially masked forms).
    expect(seen.sent).not.toContain("hunter2");
  });

  it("an error quoting the value (the self-heal note, the thrown error) is masked too", async () => {
    await page().goto(world.server.url("forms.html?case=error"));
    const country = { country: { value: "Atlantis-SECRET", description: "a country" } };
    const err = await env.svc.act("please select %country% from the Country dropdown", { variables: country }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // Healed once (the note quotes the failure), then failed again.
    expect(world.fake.requests).toHaveLength(2);
    expect(world.fake.requests[1]!.note).toMatch(/failed: no option "%country%"/);
    expect((err as Error).message).toContain('no option "%country%"');
    for (const text of [everythingSent(world.fake), logs.text(), (err as Error).message, String((err as Error).stack), JSON.stringify(await env.svc.history)]) {
      expect(text).not.toContain("Atlantis");
    }
  });

  it("history entries carry variable names, never values", async () => {
    const history = await env.svc.history;
    const acts = history.filter((h) => h.method === "act");
    expect(acts.length).toBeGreaterThanOrEqual(3);
    expect(acts[0]!.parameters).toEqual({ instruction: "please type %password% into the Password field", variables: ["password", "fullName"] });
    const observes = history.filter((h) => h.method === "observe");
    expect(observes[0]!.parameters).toEqual({ instruction: "find the Password field", variables: ["password", "fullName"] });
  });

  it("the inference log holds prompts and replies, one JSON line each", async () => {
    const lines = readFileSync(join(dirs.cwd, "svc-inference.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines[0]).toMatchObject({ operation: "act", model: wire.model(world.fake).modelName, reply: expect.any(String) });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });
});
