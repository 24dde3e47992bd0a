/**
 * The live view's entry for a CLI session's host (commands/host/view.ts): the loopback server and the source
 * over a DevTools connection the host holds. Loads no other part of the server.
 */
export { type LiveAnswer, type LocalLiveView, type LocalLiveViewOptions, startLocalLiveView } from "./local-view.js";
export { connectionSource } from "./connection-source.js";
