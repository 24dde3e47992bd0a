/**
 * The network recorder alone, as a face other than the CLI's host holds it: a client's own session of a real page
 * records its requests, keeps the newest `limit`, hands out a body Chrome still holds, groups a capture by page with
 * its load times, and the capture makes a valid HAR 1.2.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CdpConnection } from "../../src/browser/cdp/connection.js";
import { buildHar } from "../../src/browser/har.js";
import { NetworkRecorder } from "../../src/browser/network-recorder.js";
import { waitFor } from "../support/browser.js";
import { harProblems } from "../support/har-check.js";
import { withService } from "../support/models.js";
import { useFixtureServer } from "../support/use-resource.js";

const server = useFixtureServer();
const DATA = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "fixtures", "pages", "fetch", "data.json"), "utf8")) as unknown;

describe("NetworkRecorder", () => {
  it("records a page's requests on a client's own session: the newest `limit`, a body, a HAR of a capture", async () => {
    await withService({}, async (svc) => {
      const client = await CdpConnection.connect((await svc.init()).sessionUrl);
      try {
        const target = (await client.root.send("Target.getTargets")).targetInfos.find((t) => t.type === "page" && t.url === "about:blank")!;
        const { sessionId } = await client.root.send("Target.attachToTarget", { targetId: target.targetId, flatten: true });
        const page = client.session(sessionId)!;
        let changes = 0;
        const recorder = new NetworkRecorder({ limit: 3, onChange: () => void changes++ });
        await recorder.watch(page, target.targetId);
        await page.send("Page.enable");
        recorder.startCapture(100);
        const url = server.url("network.html?count=120");
        await page.send("Page.navigate", { url });
        const last = () => recorder.entries().find((e) => e.url.endsWith("data.json?n=119"));
        expect(await waitFor(() => last()?.state === "finished" && recorder.page("p1")?.onLoad !== undefined, 30_000, 50)).toBe(true);
        expect(changes).toBeGreaterThan(120);
        // Trimmed in steps of 100 past the limit, never below it.
        expect(recorder.entries().length).toBeGreaterThanOrEqual(3);
        expect(recorder.entries().length).toBeLessThanOrEqual(103);
        expect(recorder.entries().at(-1)!.url).toContain("data.json?n=");

        // The capture keeps its newest 100 of the page's 126 requests (document, 4 fetches, favicon maybe, 120 more).
        const { entries, pages, dropped } = recorder.stopCapture();
        expect(entries.length).toBe(100);
        expect(dropped).toBeGreaterThanOrEqual(25);
        expect(entries.some((e) => e.url === url)).toBe(false);
        expect(entries.at(-1)).toBe(last());
        const data = last()!;
        expect(data).toMatchObject({ method: "GET", type: "Fetch", status: 200, mimeType: "application/json", state: "finished", page: "p1" });
        expect(pages).toEqual([expect.objectContaining({ id: "p1", url, target: target.targetId })]);
        expect(pages[0]!.onContentLoad).toBeGreaterThanOrEqual(0);
        expect(pages[0]!.onLoad).toBeGreaterThanOrEqual(pages[0]!.onContentLoad!);
        expect(recorder.capturing).toBe(false);

        const body = await recorder.body(data.id);
        expect(body.base64Encoded).toBe(false);
        expect(JSON.parse(body.body)).toEqual(DATA);

        const har = buildHar({ entries, pages, creator: { name: "svc", version: "test" }, bodies: new Map([[data.id, { text: body.body, base64Encoded: false }]]) });
        expect(harProblems(JSON.parse(JSON.stringify(har)))).toEqual([]);
        expect(har.log.entries.length).toBe(entries.length);
        expect(har.log.entries.find((e) => e.request.url === data.url)!.response.content.text).toBe(body.body);
      } finally {
        await client.close();
      }
    });
  }, 90_000);
});
