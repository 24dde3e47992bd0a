// The Stagehand 4.4.0 client as a user runs it, in its own process (it needs the global WebSocket: Node 20
// runs it with --experimental-websocket). Everything comes from the environment; one JSON line on stdout.
import { browserbase, Stagehand } from "stagehand4";

// CONNECT_SESSION: attach to that existing session (browserbase.connect) instead of launching one.
const { SVC_URL, SVC_KEY, PAGE_URL, ACT, EXTRACT, CONNECT_SESSION } = process.env;
const out = { steps: [] };
const step = (name, data = {}) => out.steps.push({ name, ...data });
let browser;
let stagehand;
try {
  if (CONNECT_SESSION) {
    browser = await browserbase.connect({ apiKey: SVC_KEY, baseUrl: SVC_URL, sessionId: CONNECT_SESSION });
    step("connect", { sessionId: browser.sessionId });
  } else {
    browser = await browserbase.launch({ apiKey: SVC_KEY, baseUrl: SVC_URL });
    step("launch", { sessionId: browser.sessionId });
  }
  stagehand = await Stagehand.create({ browser, apiKey: SVC_KEY, apiUrl: SVC_URL, logging: { level: "warn" } });
  step("create");
  const page = await browser.context.activePage();
  await page.goto(PAGE_URL);
  step("goto", { url: PAGE_URL });
  const acted = await stagehand.act(ACT);
  step("act", { result: acted });
  const extracted = await stagehand.extract(EXTRACT);
  step("extract", { result: extracted });
} catch (e) {
  out.error = { name: e?.name, message: e?.message, cause: e?.cause ? String(e.cause?.message ?? e.cause) : undefined, stack: e?.stack };
} finally {
  try {
    await stagehand?.close();
    await browser?.close();
    step("close");
  } catch (e) {
    out.closeError = String(e?.message ?? e);
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
