/**
 * Where a session's host listens: the host's door for it. The rule lives beside the state dir's
 * (src/store/state-dir.ts), so that ending a session removes the socket wherever the host put it.
 */
export { MAX_SOCKET_PATH, hostSocketPath } from "../../src/store/state-dir.js";
