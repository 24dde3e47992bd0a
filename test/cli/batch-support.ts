/**
 * Fixture tasks for the `svc batch` / `svc worker` tests: small agent tasks on the fixture shop (one or two
 * steps each), a scripted model that solves them by reading the page (so a result depends on the page the
 * task really reached), and readers for the JSON lines svc prints.
 */
import { writeFileSync } from "node:fs";
import type { FakeModel, FakeReply, FakeReplyFn } from "../support/fake-model.js";
import { parseSnapshot } from "../support/fake-model.js";
import type { FixtureServer } from "../support/server.js";
import { step } from "../e2e/agent-support.js";

export const PLANTS = ["rose", "tulip", "fern", "cactus", "orchid", "lavender"];
export const SECRET = "hunter2xyzzy";

export interface TaskOptions {
  count: number;
  /** Index of a task whose first model answer takes `slowMs` (to be caught mid-task). */
  slow?: number;
  /** Index of a task that types a %q% variable into the shop's search box. */
  secret?: number;
}

/**
 * Task i: even ones open the plant page themselves (`url`), odd ones name it in the instruction (the model
 * opens it: two steps); the answer is the plant's name and price read off the page.
 */
export function writeTasks(path: string, server: FixtureServer, o: TaskOptions): void {
  const lines: string[] = [];
  for (let i = 0; i < o.count; i++) {
    const page = server.url(`site/item.html?id=${PLANTS[i % PLANTS.length]}`);
    if (i === o.secret) {
      lines.push(JSON.stringify({ id: `t${i}`, instruction: `Task ${i}: search for %q% and report the shop's name`, url: server.url("site/index.html"), variables: { q: SECRET }, maxSteps: 4 }));
    } else if (i % 2 === 0) {
      lines.push(JSON.stringify({ id: `t${i}`, instruction: `Task ${i}: report the plant's name and price${i === o.slow ? " slowly" : ""}`, url: page, maxSteps: 3 }));
    } else {
      lines.push(JSON.stringify({ id: `t${i}`, instruction: `Task ${i}: open ${page} and report the plant's name and price${i === o.slow ? " slowly" : ""}`, maxSteps: 3 }));
    }
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** The page's first heading, as the outline shows it (`h1 Red Rose`). */
const headingOf = (snapshot: string) => /^h1 (.+)$/m.exec(snapshot)?.[1] ?? "nothing";

export function batchBrain(slowMs = 0): FakeReplyFn {
  return (req) => {
    if (req.operation !== "agent_step") return undefined;
    const ins = req.instruction ?? "";
    const n = /^Task (\d+)/.exec(ins)?.[1] ?? "?";
    const target = /open (\S+)/.exec(ins)?.[1];
    const lines = parseSnapshot(req.snapshot);
    let reply: FakeReply;
    if (target && req.url !== target) reply = step("goto", { url: target }, "open the page");
    else if (ins.includes("%q%")) {
      const box = lines.find((l) => l.ref && l.role === "searchbox");
      const heading = headingOf(req.snapshot);
      // Fill the box, look at the page again (its outline, with the value in the box, lands in the result's
      // actions as pageText), then answer.
      const stepNo = Number(/Step (\d+) of/.exec(req.userText)?.[1] ?? 1);
      if (stepNo === 1 && box) reply = step("perform", { ref: box.ref, method: "fill", arguments: ["%q%"] }, "search");
      else if (stepNo === 2) reply = step("ariaTree", {}, "look again");
      else reply = step("done", { message: `Task ${n}: searched ${heading}`, success: true });
    } else {
      const heading = headingOf(req.snapshot);
      const price = /Price: ([\d.]+)/.exec(req.snapshot)?.[1] ?? "?";
      reply = step("done", { message: `Task ${n}: ${heading} costs ${price}`, success: true }, "read the page");
    }
    return slowMs && ins.includes("slowly") ? { kind: "delay", ms: slowMs, then: reply } : reply;
  };
}

export function scriptBrain(fake: FakeModel, brain: FakeReplyFn, n = 400): void {
  fake.reset();
  fake.script(...Array.from({ length: n }, () => brain));
}

export type Line = Record<string, any> & { schemaVersion: number; type: string };

export function jsonLines(stdout: string): Line[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a JSON line: ${l.slice(0, 200)}`);
      }
    });
}

/** What must be the same however a batch ran: no timing, attempts or per-action times. */
export function comparable(r: Record<string, any>): Record<string, unknown> {
  return {
    index: r.index,
    id: r.id,
    success: r.success,
    completed: r.completed,
    message: r.message,
    actions: (r.actions as Array<Record<string, unknown>>).map((a) => [a.type, a.action ?? null, a.pageUrl ?? null]),
  };
}
