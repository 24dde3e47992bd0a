/**
 * The MCP network tools, on the library's recorders so they match the CLI: `route` / `unroute` answer or fail the tabs'
 * requests (PageFetch, as `svc network route`), every route checked as the CLI's are (store/routes.ts bounds them).
 * The requests the tabs made are capabilities (src/capabilities/network.ts).
 */
import { type SessionRoute, checkRoutes } from "../internal.js";
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

function describe(r: SessionRoute): string {
  if (r.abort) return `${r.pattern} → fail (blocked)`;
  const bytes = r.body ? Buffer.from(r.body, "base64").length : 0;
  return `${r.pattern} → ${r.status ?? 200}${r.contentType ? ` ${r.contentType}` : ""}, ${bytes} byte body`;
}

const listed = (routes: SessionRoute[]) => (routes.length ? routes.map((r) => `  ${describe(r)}`).join("\n") : "  (none)");

export function registerNetworkTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "route", ({ pattern, status, body, contentType, headers, abort }) =>
    b.run(async () => {
      if (abort && (status !== undefined || body !== undefined || contentType !== undefined || headers !== undefined)) throw new ServiceInvalidArgumentError("abort: goes alone (a failed request has no response)");
      const route: SessionRoute = abort
        ? { pattern, abort: true }
        : {
            pattern,
            ...(status !== undefined ? { status } : {}),
            ...(headers !== undefined ? { headers } : {}),
            ...(contentType !== undefined ? { contentType } : {}),
            ...(body !== undefined ? { body: Buffer.from(body, "utf8").toString("base64") } : {}),
          };
      const fetch = await b.routes();
      // A pattern routed again is replaced; the list as a whole is checked as the CLI's file is.
      const routes = checkRoutes([...fetch.current.filter((r) => r.pattern !== pattern), route]);
      const applied = await fetch.setRoutes(routes);
      return textResult(`routed ${describe(route)} in ${applied.pages} tab${applied.pages === 1 ? "" : "s"}; routes now:\n${listed(fetch.current)}`);
    }),
  );

  registerDeclared(reg, "unroute", ({ pattern }) =>
    b.run(async () => {
      const fetch = await b.routes();
      const before = fetch.current;
      const left = pattern === undefined ? [] : before.filter((r) => r.pattern !== pattern);
      if (pattern !== undefined && left.length === before.length) throw new ServiceInvalidArgumentError(`pattern: no route has the pattern ${JSON.stringify(pattern.slice(0, 200))}`);
      await fetch.setRoutes(left);
      return textResult(`removed ${before.length - left.length} route${before.length - left.length === 1 ? "" : "s"}; routes now:\n${listed(fetch.current)}`);
    }),
  );
}
