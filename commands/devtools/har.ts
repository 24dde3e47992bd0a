/**
 * `svc har start` and `svc har stop FILE`: a HAR of every tab's requests in between, recorded and written by the
 * session's host (host/network.ts) with the bodies Chrome still holds and the session's secrets masked. FILE is
 * checked here first, so a bad path loses no recording.
 */
import { ServiceInvalidArgumentError } from "../../src/base.js";
import type { HarWritten } from "../host/network.js";
import type { GlobalOptions } from "../core/output.js";
import { checkOutputPath } from "../core/output-file.js";
import { askSessionHost } from "../host/ask.js";
import { networkSession } from "./network.js";
import { output } from "../core/runtime.js";

export async function harStart(g: GlobalOptions): Promise<void> {
  const out = output(g);
  const { root, session } = await networkSession(g, "har");
  const r = await askSessionHost<{ startedAt: string }>(root, session.id, { control: "harStart" });
  out.result({ session: session.id, recording: true, startedAt: r.startedAt }, () => `recording a HAR of session ${session.id}'s requests (svc har stop FILE writes it)`);
}

export async function harStop(g: GlobalOptions, file: string, version: string): Promise<void> {
  const out = output(g);
  if (!file.trim()) throw new ServiceInvalidArgumentError("har stop: file: expected a path");
  const path = checkOutputPath(file);
  const { root, session } = await networkSession(g, "har");
  const r = await askSessionHost<HarWritten>(root, session.id, { control: "harStop", file: path, version }, 60_000);
  out.result({ session: session.id, file: r.file, entries: r.entries, pages: r.pages, bodies: r.bodies, dropped: r.dropped, bytes: r.bytes }, () =>
    `wrote ${r.file}: ${r.entries} request${r.entries === 1 ? "" : "s"}, ${r.pages} page${r.pages === 1 ? "" : "s"}, ${r.bodies} bod${r.bodies === 1 ? "y" : "ies"}${r.dropped ? ` (the ${r.dropped} oldest dropped)` : ""}`,
  );
}
