/**
 * Values, not placeholders, reach the page (issue 22): a value typed into a password field is from then on masked as
 * `%password%` in all the model sees, the caller's next instruction included; the model answers `%password%` and the
 * real value reaches the field. A `%name%` nobody can resolve is refused, never typed.
 */
import { describe, expect, it } from "vitest";
import { everythingSent, expectText, inPage, useModelService, useModelWorld, WIRES } from "../support/models.js";

const world = useModelWorld();
const wire = WIRES[0]!;
const PASSWORD = "Secr3t-Pass-77";

describe("a sign-up form with a verify-password field, driven by act(instruction)", () => {
  const env = useModelService(() => ({ model: wire.model(world.fake) }));
  const value = (id: string) => inPage<string>(env.svc.page, `document.querySelector("#${id}").value`);

  it("the same password typed into the verify field is the value, not %password%, and the model never saw it", async () => {
    await env.svc.page.goto(world.server.url("signup.html"));
    const first = await env.svc.act(`please type "${PASSWORD}" into the Password field`);
    expect(first.success).toBe(true);
    expect(await value("password")).toBe(PASSWORD);

    const second = await env.svc.act(`please type "${PASSWORD}" into the Verify password field`);
    expect(second.success).toBe(true);
    expect(await value("verify")).toBe(PASSWORD);
    await expectText(env.svc.page, "#result", "passwords match");

    // What the model was told: the second instruction carries the mask, and it answered with the mask.
    const acts = world.fake.requestsFor("act");
    expect(acts).toHaveLength(2);
    expect(acts[1]!.instruction).toBe('please type "%password%" into the Verify password field');
    expect(second.actions).toEqual([expect.objectContaining({ method: "fill", arguments: ["%password%"] })]);
    const sent = everythingSent(world.fake);
    expect(sent).toContain("%password%");
    // The first instruction was sent before the value was a secret (the caller wrote it out); every request
    // after it holds no trace of the value.
    for (const r of acts.slice(1)) expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
  });

  it("a %name% that is no variable and no masked value is refused, and nothing is typed", async () => {
    await env.svc.page.goto(world.server.url("signup.html"));
    await expect(env.svc.act("please type %foo% into the Verify password field")).rejects.toMatchObject({ code: "LLM_RESPONSE_ERROR", message: expect.stringContaining("%foo%") });
    expect(await value("verify")).toBe("");
    // The model did answer with the placeholder: the refusal is svc's, after the model's choice.
    expect(world.fake.requestsFor("act").at(-1)!.instruction).toBe("please type %foo% into the Verify password field");
  });
});
