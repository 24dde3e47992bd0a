/**
 * One platform session's recorder: the library's browser recorder (browser/recorder.ts) from Chrome's start to the
 * session's end, what it reports kept here bounded (recorder-logs.ts), in the SDK's shapes (SessionLog for …/logs,
 * SessionRecording for …/recording). What was kept stays readable after the connection closed.
 */
import { type BrowserRecorder, type DownloadBudget, startRecorder } from "../../internal.js";
import { BoundedList, eventEntry, LOG_LIMITS, RECORDING_LIMITS, type SessionLog } from "./recorder-logs.js";

/** The SDK's SessionRecording (@browserbasehq/sdk resources/sessions/recording/recording.d.ts): one rrweb event. */
export interface SessionRecording {
  data: Record<string, unknown>;
  sessionId: string;
  timestamp: number;
  type: number;
}

/** rrweb's event type for custom events: where a truncated recording says so. */
const RRWEB_CUSTOM = 5;

export class SessionRecorder {
  private readonly log = new BoundedList<SessionLog>(LOG_LIMITS);
  private readonly recording = new BoundedList<SessionRecording>(RECORDING_LIMITS);
  private recorder: BrowserRecorder | undefined;
  private closed = false;

  constructor(
    readonly sessionId: string,
    /** Where the recorder points Chrome's downloads, and their bounds; undefined: it leaves them as they are. */
    private readonly downloads: DownloadBudget | undefined,
    /** The SDK's `browserSettings.recordSession` / `logSession` (false: nothing of that kind is kept). */
    private readonly keep: { record: boolean; log: boolean } = { record: true, log: true },
  ) {}

  async start(wsEndpoint: string): Promise<void> {
    const sinks = {
      event: (pageId: number, method: string, params: Record<string, unknown>, ids?: { frameId?: string | undefined; loaderId?: string | undefined }) => {
        if (!this.keep.log) return;
        const { entry, bytes } = eventEntry(this.sessionId, pageId, method, params, ids);
        this.log.push(entry, bytes);
      },
      recording: (payload: string) => {
        const e = recordingEvent(this.sessionId, payload);
        if (e) this.recording.push(e.event, e.bytes);
      },
    };
    const recorder = await startRecorder(wsEndpoint, sinks, { downloads: this.downloads, record: this.keep.record });
    this.recorder = recorder;
    if (this.closed) await recorder.close();
  }

  /** Ends the connection (the session ends); the log and recording stay. */
  async close(): Promise<void> {
    this.closed = true;
    await this.recorder?.close();
  }

  /** The log, oldest first; when entries were dropped, a first `svc.entriesDropped` entry says how many. */
  logs(): SessionLog[] {
    const list = this.log.list();
    if (!this.log.dropped) return list;
    const dropped: SessionLog = { method: "svc.entriesDropped", pageId: -1, sessionId: this.sessionId, request: { params: { dropped: this.log.dropped, limits: LOG_LIMITS }, rawBody: "", timestamp: Date.now() } };
    return [dropped, ...list];
  }

  /** The rrweb events in order; when events were not taken, a last custom event (tag `svc.truncated`) says how many. */
  events(): SessionRecording[] {
    const list = this.recording.list();
    if (!this.recording.dropped) return list;
    const last = list.at(-1)?.timestamp ?? Date.now();
    return [...list, { type: RRWEB_CUSTOM, data: { tag: "svc.truncated", payload: { dropped: this.recording.dropped, limits: RECORDING_LIMITS } }, sessionId: this.sessionId, timestamp: last }];
  }

  /** Bytes held in memory by the log and the recording. */
  get bytes(): number {
    return this.log.bytes + this.recording.bytes;
  }

  /** Frees the log and the recording (the server keeps too much of ended sessions). */
  drop(): void {
    this.log.clear();
    this.recording.clear();
  }
}

/** An rrweb event as the SDK's SessionRecording gives it, or undefined when `payload` is not one. */
function recordingEvent(sessionId: string, payload: string): { event: SessionRecording; bytes: number } | undefined {
  let e: unknown;
  try {
    e = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof e !== "object" || e === null) return undefined;
  const { type, data, timestamp } = e as { type?: unknown; data?: unknown; timestamp?: unknown };
  if (typeof type !== "number" || typeof timestamp !== "number" || typeof data !== "object" || data === null) return undefined;
  return { event: { data: data as Record<string, unknown>, sessionId, timestamp, type }, bytes: payload.length + 80 };
}
