/**
 * The tools that ask a model: act (an instruction) (observe, extract, agent, search and fetch are capabilities:
 * src/capabilities/model.ts, agent.ts, web.ts). The page-changing ones answer with the page after them.
 */
import type { McpBrowser } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

export function registerModelTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(
    reg,
    "act",
    ({ instruction, variables }) =>
      b.run(async () => {
        const svc = await b.service();
        const r = await svc.act(instruction, variables ? { variables } : {});
        return b.report(`${r.success ? "" : "failed: "}${r.message}`);
      }),
  );
}
