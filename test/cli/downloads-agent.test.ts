/**
 * The agent is told where a download went: a step clicks an attachment link in a one-shot browser started
 * with `--downloads DIR`, and the next request to the (fake) model says "downloaded <name> (<size>) to <path>".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { refOf } from "../support/models.js";
import { DOWNLOAD_BODY } from "../support/server.js";
import { step, stepRequests } from "../e2e/agent-support.js";
import { type ModelWorld, svc, startModelWorld } from "./helpers.js";

let world: ModelWorld;
beforeAll(async () => {
  world = await startModelWorld();
});
afterAll(async () => {
  await world?.close();
});

it("the step after a click that downloads tells the model the file's name, size and path", async () => {
  const { fake, server, sb } = world;
  const dir = join(sb.tmp, "..", "agent-downloads");
  fake.script(
    (req) => step("perform", { ref: refOf(req, "link", "Download the report"), method: "click", arguments: [] }, "download it"),
    () => step("done", { message: "downloaded", success: true }),
  );
  const r = await svc(["--json", "--downloads", dir, "agent", "download the report", "--url", server.url("downloads.html"), "--max-steps", "3", "--new"], sb.env, { timeoutMs: 90_000 });
  expect(r.code, r.stderr + r.stdout.slice(-1500)).toBe(0);
  const path = join(dir, "report.txt");
  expect(readFileSync(path, "utf8")).toBe(DOWNLOAD_BODY);
  const prompts = stepRequests(fake);
  expect(prompts).toHaveLength(2);
  expect(prompts[0]!.userText).not.toContain("Downloads since the last step");
  expect(prompts[1]!.userText).toContain(`Downloads since the last step:\n- downloaded report.txt (47 B) to ${path}\n`);
});
