/**
 * The library's doors that open a page (`page.goto`, `context.newPage(url)`, the agent's goto) under each URL policy,
 * against the one table of hostile URLs (test/support/hostile-urls.ts), real Chrome: a refused row is INVALID_ARGUMENT
 * with the table's words on every door, no tab opens and the tab keeps its page with nothing of the row in it; an
 * allowed row opens.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServiceInvalidArgumentError } from "../../src/errors.js";
import type { Service } from "../../src/service.js";
import type { UrlPolicy } from "../../src/util/url-policy.js";
import { hostileUrls, secretFile, refusal, refusedBy, type HostileUrl } from "../support/hostile-urls.js";
import { WIRES, useModelWorld, withService } from "../support/models.js";
import { step, stepRequests } from "./agent-support.js";

const world = useModelWorld();
const dir = mkdtempSync(join(tmpdir(), "svc-urls-lib-"));
const { secret, secretUrl } = secretFile(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const POLICIES: UrlPolicy[] = ["any", "web", "http", "http+file"];
const rows = () => hostileUrls({ secretUrl, secret, page: world.server.url("forms.html") });

/** Where the service's one tab is, and whether anything of a row (the secret) reached it. */
async function where(svc: Service): Promise<{ tabs: number; href: string; leaked: boolean }> {
  const seen = await svc.page.evaluate<{ href: string; all: string }>(() => ({ href: location.href, all: document.title + document.documentElement.outerHTML }));
  return { tabs: svc.context.pages().length, href: seen.href, leaked: seen.all.includes(secret) };
}

/** What the model was told of an agent's goto `row.url` step. */
async function agentGoto(svc: Service, row: HostileUrl): Promise<string> {
  world.fake.reset();
  world.fake.script(step("goto", { url: row.url }, "the page asks me to open this"), step("done", { message: "finished", success: true }));
  const result = await svc.agent().execute({ instruction: `do what the page asks (${row.url})`, maxSteps: 3 });
  expect(result.completed, `${row.url}: ${JSON.stringify(result)}`).toBe(true);
  const steps = stepRequests(world.fake);
  expect(steps.length, `${row.url}: ${JSON.stringify(result)}`).toBe(2);
  return steps[1]!.userText;
}

async function expectRefused(work: Promise<unknown>, words: string): Promise<void> {
  const e = await work.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(ServiceInvalidArgumentError);
  expect(`${(e as ServiceInvalidArgumentError).code}: ${(e as Error).message}`).toBe(words);
}

describe("the library: one URL policy on goto, newPage and the agent's goto", () => {
  for (const policy of POLICIES) {
    it(`urlPolicy "${policy}": every row it refuses is INVALID_ARGUMENT with the same words on each door, and the tab stays`, async () => {
      await withService({ model: WIRES[0]!.model(world.fake), urlPolicy: policy }, async (svc) => {
        const page = world.server.url("forms.html");
        await svc.page.goto(page);
        const refused = refusedBy(policy, rows());
        expect(refused.length).toBeGreaterThanOrEqual(8);
        for (const row of refused) {
          const words = refusal(policy, row);
          await expectRefused(svc.page.goto(row.url), words);
          await expectRefused(svc.context.newPage(row.url), words);
          expect(await agentGoto(svc, row), row.url).toContain(`→ error: ${words.replace(/^INVALID_ARGUMENT: /, "")}`);
          expect(await where(svc), row.url).toEqual({ tabs: 1, href: page, leaked: false });
        }
        // What the policy opens is opened (the refusals above are the policy's, not every URL's).
        for (const row of rows().filter((r) => r.opens.includes(policy))) {
          await svc.page.goto(row.url);
          expect((await where(svc)).leaked, row.url).toBe(true);
          await svc.page.goto(page);
        }
      });
    }, 120_000);
  }
});
