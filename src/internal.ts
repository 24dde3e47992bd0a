/**
 * What the faces (src/server/, src/mcp/, commands/) use beyond the public API (src/index.ts): parts of the
 * library that a library user has no business with, exported here so the faces never reach into the
 * library's folders directly. Explicit named exports only.
 */
export { CdpConnection } from "./browser/cdp/connection.js";
export { checkFetchUrl } from "./fetch/index.js";
