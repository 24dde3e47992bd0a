/**
 * The MCP network tools, on the library's recorders so they match the CLI: `network_requests` / `network_request` list
 * what the tabs requested (NetworkRecorder, as `svc network`), `route` / `unroute` answer or fail the tabs' requests
 * (PageFetch, as `svc network route`), every route checked as the CLI's are (store/routes.ts bounds them).
 */
import { type NetworkEntry, type SessionRoute, checkRoutes, durationWord, headerLines, statusWord } from "../internal.js";
import { ServiceInvalidArgumentError } from "../index.js";
import { type McpBrowser, textResult } from "./browser.js";
import { type Registrar, registerDeclared } from "./register.js";

function describe(r: SessionRoute): string {
  if (r.abort) return `${r.pattern} → fail (blocked)`;
  const bytes = r.body ? Buffer.from(r.body, "base64").length : 0;
  return `${r.pattern} → ${r.status ?? 200}${r.contentType ? ` ${r.contentType}` : ""}, ${bytes} byte body`;
}

const listed = (routes: SessionRoute[]) => (routes.length ? routes.map((r) => `  ${describe(r)}`).join("\n") : "  (none)");

/** The most requests one `network_requests` result lists; the most body characters `network_request` returns. */
const MAX_LINES = 200;
const MAX_BODY_CHARS = 50_000;

const line = (e: NetworkEntry) => `${e.id} ${e.method} ${statusWord(e)} ${e.type} ${e.url} ${durationWord(e)}${e.failure ? ` ${e.failure}` : ""}`;

export function registerNetworkTools(reg: Registrar, b: McpBrowser): void {
  registerDeclared(reg, "network_requests", ({ filter, all, clear }) =>
    b.run(async () => {
      const svc = await b.service();
      const current = svc.page.targetId;
      const needle = filter?.toLowerCase();
      const shown = b.network.entries().filter((e) => (all || e.target === current) && (needle === undefined || e.url.toLowerCase().includes(needle)));
      if (clear) b.network.clear();
      if (!shown.length) return textResult(`no requests${all ? "" : " in the current tab"}${needle === undefined ? "" : ` whose URL contains ${JSON.stringify(filter)}`}${clear ? " (cleared)" : ""}`);
      const listed = shown.slice(-MAX_LINES).map((e) => svc.secrets.text(line(e)));
      return textResult([...(shown.length > MAX_LINES ? [`${shown.length - MAX_LINES} older requests not shown`] : []), ...listed, ...(clear ? ["cleared"] : [])].join("\n"));
    }),
  );

  registerDeclared(reg, "network_request", ({ id, body }) =>
    b.run(async () => {
      const svc = await b.service();
      const e = b.network.find(id);
      if (!e) throw new ServiceInvalidArgumentError(`id: no request ${id} (network_requests lists them; the newest 1,000 are kept)`);
      const lines = [
        line(e),
        ...(e.redirectedTo ? [`redirected to: ${e.redirectedTo}`] : []),
        "request headers:",
        ...headerLines(e.requestHeaders),
        ...(e.postData !== undefined ? ["request body:", `  ${e.postData}`] : []),
        ...(e.responseHeaders ? ["response headers:", ...headerLines(e.responseHeaders)] : []),
      ];
      if (body) {
        const got = await b.network.body(id);
        const text = got.body.length > MAX_BODY_CHARS ? `${got.body.slice(0, MAX_BODY_CHARS)}… (cut: ${got.body.length} characters)` : got.body;
        lines.push(got.base64Encoded ? `body (${got.bytes} bytes, base64):` : `body (${got.bytes} bytes):`, text);
      }
      return textResult(svc.secrets.text(lines.join("\n")));
    }),
  );

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
