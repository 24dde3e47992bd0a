/**
 * The live view's wire: what a viewer page may send on its WebSocket (every message validated here,
 * anything else closes the socket with 1008 and a one-line reason naming the field), what the server
 * sends back, and the bounds. Coordinates are the page's CSS pixels (the viewer scales them from the
 * frame it shows, using the frame's metadata).
 */
import { z } from "zod";
import { describeIssue } from "../../util/zod.js";

export const LIVE_LIMITS = {
  /** Largest viewer message (bytes): every message is a few short fields; a larger one closes the socket (1008). */
  maxMessageBytes: 8 * 1024,
  /** Largest message the WebSocket layer reads at all (ws's maxPayload): past it, ws closes with 1009 unread. */
  maxWireMessageBytes: 64 * 1024,
  /** Viewer messages per second, at most (a burst of this many, refilled per second): past it the socket closes. */
  maxMessagesPerSecond: 200,
  /** Viewers of one session at once (sockets); the next one is refused with 429 LIVE_VIEWERS. */
  maxViewersPerSession: 4,
  /** Bounds of the screencast's frame size (CSS pixels of the viewer's window). */
  minFrameSide: 64,
  maxFrameSide: 3840,
  /** JPEG quality of the frames. */
  jpegQuality: 70,
  /** Unsent bytes on a viewer's socket past which no frame is sent: the newest waits in one slot, Chrome's capture pauses. */
  maxBufferedBytes: 2 * 1024 * 1024,
  /** A viewer whose socket took none of the bytes waiting for it for this long is closed (1008). */
  stuckViewerMs: 15_000,
  /** How often the tab list (titles, URLs, new tabs) is read again while a viewer watches. */
  tabsRefreshMs: 2000,
  /** CDP commands in flight per viewer: input past it is dropped. */
  maxPendingCommands: 64,
} as const;

/** The longest reply a person may type under a question. */
export const LIVE_REPLY_CHARS = 1000;

const coord = z.number().finite().min(-100_000).max(100_000);
const modifiers = z.number().int().min(0).max(15).optional();

const Mouse = z.strictObject({
  type: z.literal("mouse"),
  action: z.enum(["move", "down", "up", "wheel"]),
  x: coord,
  y: coord,
  button: z.enum(["none", "left", "middle", "right"]).optional(),
  clickCount: z.number().int().min(0).max(3).optional(),
  deltaX: coord.optional(),
  deltaY: coord.optional(),
  modifiers,
});

const Key = z.strictObject({
  type: z.literal("key"),
  action: z.enum(["down", "up"]),
  key: z.string().min(1).max(32),
  code: z.string().max(32).optional(),
  keyCode: z.number().int().min(0).max(255).optional(),
  /** The text the key types (a printable character, or "\r" for Enter). */
  text: z.string().max(8).optional(),
  modifiers,
});

export const ViewerMessageSchema = z.discriminatedUnion("type", [
  /** The viewer painted the last frame it got: the next one may come. */
  z.strictObject({ type: z.literal("ack") }),
  /** The viewer's screen size (CSS pixels × its device pixel ratio): the frames' largest size. */
  z.strictObject({ type: z.literal("size"), width: z.number().int().min(1).max(100_000), height: z.number().int().min(1).max(100_000) }),
  Mouse,
  Key,
  z.strictObject({ type: z.literal("navigate"), url: z.string().min(1).max(4096) }),
  z.strictObject({ type: z.literal("history"), action: z.enum(["back", "forward", "reload"]) }),
  z.strictObject({ type: z.literal("tab"), id: z.string().min(1).max(128) }),
  /** The person pressed Continue on a question the session asked (`ask` below); an optional reply. */
  z.strictObject({ type: z.literal("answer"), id: z.string().min(1).max(64), reply: z.string().max(LIVE_REPLY_CHARS).optional() }),
  /** Answered with a pong once every command the earlier messages sent the tab was answered by Chrome. */
  z.strictObject({ type: z.literal("ping"), n: z.number().int().min(0).max(2 ** 31) }),
]);

export type ViewerMessage = z.infer<typeof ViewerMessageSchema>;
export type MouseMessage = z.infer<typeof Mouse>;
export type KeyMessage = z.infer<typeof Key>;

/** Message types that act on the page (a view-only socket ignores them). */
export const INPUT_TYPES: ReadonlySet<ViewerMessage["type"]> = new Set(["mouse", "key", "navigate", "history", "tab", "answer"]);

/** A viewer message, or the one-line reason it is refused. */
export function parseViewerMessage(data: Buffer | string): { ok: true; message: ViewerMessage } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch {
    return { ok: false, reason: "message: not valid JSON" };
  }
  const parsed = ViewerMessageSchema.safeParse(json, { reportInput: true });
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, reason: describeIssue(parsed.error, "message") };
}

/** A tab as the viewer's tab strip shows it. */
export interface LiveTab {
  id: string;
  title: string;
  url: string;
}

/** What the server sends a viewer (as JSON text; a frame's JPEG follows its `frame` message as one binary message). */
export type ServerMessage =
  | { type: "hello"; interactive: boolean; limits: { maxMessagesPerSecond: number } }
  | { type: "frame"; width: number; height: number; offsetTop: number; pageScaleFactor: number }
  | { type: "tabs"; tabs: LiveTab[]; selected: string | undefined }
  | { type: "pong"; n: number }
  /** A question for the person watching (a CLI agent's askHuman): shown with a Continue button until `asked`. */
  | { type: "ask"; id: string; message: string; timeoutMs: number }
  /** The question is settled (answered here or elsewhere, timed out or withdrawn): its banner goes. */
  | { type: "asked"; id: string }
  | { type: "error"; message: string }
  | { type: "ended"; status: string };
