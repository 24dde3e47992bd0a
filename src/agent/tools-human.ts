/**
 * Human in the loop: with an askHuman handler the agent gets the `askHuman` tool. It says what it needs of a person, an
 * `ask_human` event goes out (live view, CLI), and the run waits until the handler resolves or askHumanTimeoutMs passes
 * (the tool's own timeout); `human_reply` says which. The next step shows the page as it is now. Such a step is never
 * cached: a person made it.
 */
import { z } from "zod";
import type { EventBody } from "./run.js";
import type { AskHumanHandler } from "./options.js";
import { defineTool, oneLine } from "./tools.js";

/** What askHuman gives back: whether a person answered, and their reply. */
export interface HumanAnswer {
  answered: boolean;
  reply?: string;
}

/** The longest reply passed to the model. */
const MAX_REPLY_CHARS = 1000;
/** What the tool's own timeout adds to askHumanTimeoutMs, so the wait ends with its own words first. */
export const ASK_HUMAN_MARGIN_MS = 5000;

/**
 * The asking itself, for the run's ToolEnv: the handler raced against the timeout and the step's signal,
 * with the two events around it.
 */
export function humanAsker(handler: AskHumanHandler, timeoutMs: number, emit: (e: EventBody) => void): (message: string, step: number, signal: AbortSignal) => Promise<HumanAnswer> {
  return async (message, step, signal) => {
    emit({ type: "ask_human", step, message, timeoutMs });
    const wait = new AbortController();
    const stop = () => wait.abort(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
      const aborted = new Promise<never>((_, reject) => wait.signal.addEventListener("abort", () => reject(wait.signal.reason), { once: true }));
      let answer: { reply?: string | undefined } | undefined;
      try {
        answer = await Promise.race([Promise.resolve(handler({ message, step, timeoutMs, signal: wait.signal })).then((r) => ({ reply: r?.reply ?? undefined })), timedOut, aborted]);
      } catch (e) {
        emit({ type: "human_reply", step, answered: false });
        throw e;
      }
      const reply = typeof answer?.reply === "string" && answer.reply.trim() ? answer.reply.trim().slice(0, MAX_REPLY_CHARS) : undefined;
      const result: HumanAnswer = answer ? { answered: true, ...(reply !== undefined ? { reply } : {}) } : { answered: false };
      emit({ type: "human_reply", step, ...result });
      return result;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      if (!wait.signal.aborted) wait.abort(new Error("the wait for a person ended"));
    }
  };
}

export const askHumanTool = defineTool({
  name: "askHuman",
  description:
    "ask the person watching this browser to do something you cannot (log in, enter a code, solve a check, confirm a purchase), then wait until they say they are done. " +
    "Say exactly what they should do; the next step shows the page as they left it. Use it only when you are stuck without a person",
  input: z.object({ message: z.string().min(1).max(500).describe("what the person should do, e.g. log in with your account, then press Continue") }),
  describe: (a) => `ask a person: ${oneLine(a.message, 80)}`,
  timeoutMs: (options) => options.askHumanTimeoutMs + ASK_HUMAN_MARGIN_MS,
  async run(env, a) {
    if (!env.askHuman) return { ok: false, summary: "nobody is there to ask (no askHuman handler)" };
    const answer = await env.askHuman(a.message, env.signal);
    if (!answer.answered) return { ok: false, summary: "nobody answered in time: go on without a person, or finish with done and say what is needed" };
    return { ok: true, summary: `the person is done${answer.reply !== undefined ? ` and says: ${JSON.stringify(answer.reply)}` : ""}` };
  },
});
