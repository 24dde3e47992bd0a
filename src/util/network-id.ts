/**
 * A request's id as the network recorder gives it (browser/network-recorder.ts: r1, r2, …). Here, not in the store,
 * so the capability that takes one (capabilities/network.ts, loaded before any command is known) checks the same form.
 */
export const NETWORK_REQUEST_ID = /^r\d{1,12}$/;
