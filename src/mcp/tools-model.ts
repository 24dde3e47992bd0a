/**
 * The tools that ask a model: agent (act, observe, extract, search and fetch are capabilities:
 * src/capabilities/model.ts, web.ts). The page-changing ones answer with the page after them.
 */
import type { McpBrowser } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

export function registerModelTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(
    reg,
    "agent",
    ({ instruction, maxSteps }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.agent().execute({ instruction, ...(maxSteps !== undefined ? { maxSteps } : {}) });
        return b.report(`${r.success ? "done" : "not done"}: ${r.message}`);
      }),
  );
}
