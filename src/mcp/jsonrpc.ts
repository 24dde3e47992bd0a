/**
 * Requests the SDK would leave unanswered: its transports drop a message that misfits JSONRPCMessageSchema (stdio) or
 * answer it without its id (HTTP), so a client that sent `"params": null` waited forever. Every message with an id that
 * is not a response is checked here first, on both transports: a misfit is answered with its id, -32602 for bad
 * `params`, else -32600, naming the field.
 */
import { Transform, type Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { type JSONRPCErrorResponse, JSONRPCMessageSchema, JSONRPCRequestSchema, RequestIdSchema } from "@modelcontextprotocol/sdk/types.js";
import { describeIssue } from "../util/zod.js";

/** The error answer to `message` when it is a request the SDK would drop; undefined when the SDK takes it. */
export function refusalOf(message: unknown): JSONRPCErrorResponse | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  const id = RequestIdSchema.safeParse(m.id);
  if (!id.success || "result" in m || "error" in m) return undefined;
  if (JSONRPCMessageSchema.safeParse(m).success) return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(m);
  if (parsed.success) return undefined;
  const params = parsed.error.issues[0]?.path[0] === "params";
  const what = describeIssue(parsed.error);
  return { jsonrpc: "2.0", id: id.data, error: { code: params ? -32602 : -32600, message: `${params ? "Invalid params" : "Invalid Request"}: ${what}` } };
}

/**
 * The answers to a POST body (one message or a batch) when a request in it is one the SDK would drop: each
 * such request's refusal, and for the others of its batch (not run, since the SDK refuses the whole batch)
 * an invalid-request error naming the one at fault. Undefined when the SDK takes the body.
 */
export function refusalsOf(body: unknown): JSONRPCErrorResponse | JSONRPCErrorResponse[] | undefined {
  if (!Array.isArray(body)) return refusalOf(body);
  const refusals = body.map(refusalOf);
  const bad = refusals.findIndex((r) => r !== undefined);
  if (bad < 0) return undefined;
  return body.flatMap((m: unknown, i) => {
    const id = RequestIdSchema.safeParse((m as { id?: unknown } | null)?.id);
    if (refusals[i]) return [refusals[i]];
    if (!id.success || typeof m !== "object" || m === null || "result" in m || "error" in m) return [];
    return [{ jsonrpc: "2.0" as const, id: id.data, error: { code: -32600, message: `Invalid Request: not run, message ${bad} of the batch is invalid` } }];
  });
}

/** The SDK's bound on one stdio line (its ReadBuffer's): a longer one goes to the SDK unread, which refuses it. */
const MAX_LINE = 10 * 1024 * 1024;

/**
 * `input` (newline-delimited JSON-RPC) as the SDK's stdio transport should read it: a request it would drop
 * is answered through `answer` and left out; every other line passes unchanged.
 */
export function screenedInput(input: Readable, answer: (refusal: JSONRPCErrorResponse) => void): Readable {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let unread = false; // passing an over-long line through, up to its newline
  const screen = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let text = decoder.write(chunk);
      if (unread) {
        const nl = text.indexOf("\n");
        this.push(nl < 0 ? text : text.slice(0, nl + 1));
        if (nl < 0) return done();
        unread = false;
        text = text.slice(nl + 1);
      }
      pending += text;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl + 1);
        pending = pending.slice(nl + 1);
        const refusal = refusalOf(parsed(line));
        if (refusal) answer(refusal);
        else this.push(line);
      }
      if (pending.length > MAX_LINE) {
        this.push(pending);
        pending = "";
        unread = true;
      }
      done();
    },
    flush(done) {
      pending += decoder.end();
      if (pending) this.push(pending);
      done();
    },
  });
  input.pipe(screen);
  return screen;
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
