/**
 * JavaScript dialogs are answered the moment they open: an open dialog blocks the renderer, so every later call into
 * the page would wait on it. One handler per connection answers by policy (dismiss by default; beforeunload accepted
 * so navigation proceeds), `answerNext` once. A dialog opened while no svc client was attached is Chrome's own:
 * DevTools cannot answer it.
 */
import { z } from "zod";
import type { CdpSession, EventParams } from "./cdp/connection.js";

export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload";

/** The Service option `dialogPolicy`: how dialogs are answered (beforeunload is always accepted). */
const DialogPolicySchema = z.strictObject({
  action: z.enum(["accept", "dismiss"]),
  /** What an accepted prompt() returns (default: the prompt's own default text). */
  promptText: z.string().max(10_000).optional(),
});
export type DialogPolicy = z.infer<typeof DialogPolicySchema>;

const DEFAULT_DIALOG_POLICY: DialogPolicy = { action: "dismiss" };

/** The option as written: `"accept"`, `"dismiss"` or `{ action, promptText? }`. */
export const DialogPolicyOptionSchema = z.union([z.enum(["accept", "dismiss"]), DialogPolicySchema]);
export type DialogPolicyOption = z.infer<typeof DialogPolicyOptionSchema>;

export function toDialogPolicy(option: DialogPolicyOption | undefined): DialogPolicy {
  if (option === undefined) return DEFAULT_DIALOG_POLICY;
  return typeof option === "string" ? { action: option } : option;
}

export interface DialogAnswer {
  accept: boolean;
  promptText?: string | undefined;
}

/** A dialog svc answered. */
export interface HandledDialog {
  type: DialogType;
  message: string;
  /** The URL of the frame that opened it. */
  url: string;
  accepted: boolean;
  /** What an accepted prompt() returned. */
  promptText?: string;
  /** `policy`: the dialogPolicy (or the default); `choice`: a one-time answer (answerNext). */
  by: "policy" | "choice";
}

/** One line for logs and the agent: `the page showed a confirm: "Delete?"; dismissed`. */
export function describeDialog(d: HandledDialog): string {
  const text = d.message.replace(/\s+/g, " ").trim();
  const shown = text.length > 200 ? `${text.slice(0, 199)}…` : text;
  const outcome = d.accepted ? (d.type === "prompt" ? `accepted with ${JSON.stringify(d.promptText ?? "")}` : "accepted") : "dismissed";
  return `the page showed ${d.type === "alert" ? "an" : "a"} ${d.type}${shown ? `: "${shown}"` : ""}; ${outcome}`;
}

/**
 * A page that opens dialogs without end (`for (;;) alert()`) got about a hundred answered a second, which kept Chrome
 * busy on one and a half cores. Past STORM_BURST dialogs less than STORM_GAP_MS apart, each is answered
 * STORM_SPACING_MS after it opened, until the page pauses. The page is held as much as before (a renderer showing a
 * dialog runs no script); it only costs less.
 */
export const STORM_BURST = 20;
export const STORM_SPACING_MS = 500;
const STORM_GAP_MS = 1000;

/** One session's dialog rate: how long to wait before answering the dialog that opened at `now`. */
export class DialogStorm {
  private run = 0;
  private last = -Infinity;

  delay(now: number): number {
    this.run = now - this.last > STORM_GAP_MS ? 1 : this.run + 1;
    this.last = now;
    return this.run > STORM_BURST ? STORM_SPACING_MS : 0;
  }
}

export class DialogHandler {
  private next: DialogAnswer | undefined;
  private source: (() => DialogAnswer | undefined) | undefined;
  private readonly listeners = new Set<(d: HandledDialog) => void>();
  private readonly stuckListeners = new Set<(session: CdpSession) => void>();
  /** Set by release(): another client answers from now on. */
  private released = false;
  /** Answers sent and not yet told to the listeners. */
  private readonly answering = new Set<Promise<void>>();

  constructor(private policy: DialogPolicy = DEFAULT_DIALOG_POLICY) {}

  /** The answer for the next alert/confirm/prompt only (undefined: back to the policy). */
  answerNext(answer: DialogAnswer | undefined): void {
    this.next = answer;
  }

  /**
   * Where a one-time answer comes from when none was set here, asked as each alert/confirm/prompt opens (a
   * CLI session's stored answer, which another process may have set since this one started).
   */
  answerFrom(source: (() => DialogAnswer | undefined) | undefined): void {
    this.source = source;
  }

  /**
   * Answers no more dialogs: from now on another client does (a CLI session's host, while a command
   * detaches). Resolves once the answers already under way have reached the listeners, so a record written
   * after it misses none of the dialogs this handler answered, and none this handler answers later.
   */
  async release(): Promise<void> {
    this.released = true;
    await Promise.all([...this.answering]);
  }

  /** Answers dialogs again after release() (a CLI session's host gives its kept Service the next command's dialogs). */
  claim(): void {
    this.released = false;
  }

  onDialog(listener: (d: HandledDialog) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Told when a dialog cannot be answered because its page has a navigation under way ("Not attached to an
   * active page"): a document about to be left asked after the navigation started. Chrome answers neither
   * that dialog nor any later command of the page until another navigation starts (which closes it), so
   * the navigation would never commit. The page's goto starts its navigation again (page.ts).
   */
  onStuck(listener: (session: CdpSession) => void): () => void {
    this.stuckListeners.add(listener);
    return () => void this.stuckListeners.delete(listener);
  }

  /**
   * Answers every dialog `session` reports; call before Page.enable so none is missed. `yieldMs`: answer only
   * if no other client did within that time (a CLI session's host leaves each dialog to the command
   * running, if any, so the command records it and its agent's choice applies).
   */
  watch(session: CdpSession, options: { yieldMs?: number } = {}): () => void {
    const storm = new DialogStorm();
    const yieldMs = options.yieldMs ?? 0;
    let closed = 0;
    const offClosed = session.on("Page.javascriptDialogClosed", () => void closed++);
    const offOpening = session.on("Page.javascriptDialogOpening", (e) => {
      const wait = Math.max(yieldMs, storm.delay(Date.now()));
      if (!wait) return this.track(this.answer(session, e));
      const seen = closed;
      const timer = setTimeout(() => {
        // Answered meanwhile (by the client it was left to, or closed by a navigation): nothing to do here.
        if (closed === seen) this.track(this.answer(session, e));
      }, wait);
      timer.unref();
    });
    return () => {
      offOpening();
      offClosed();
    };
  }

  private track(answer: Promise<void>): void {
    const answering = answer.catch(() => {});
    this.answering.add(answering);
    void answering.then(() => this.answering.delete(answering));
  }

  private async answer(session: CdpSession, e: EventParams<"Page.javascriptDialogOpening">): Promise<void> {
    if (this.released) return;
    const type = e.type as DialogType;
    let answer: DialogAnswer;
    let by: HandledDialog["by"] = "policy";
    if (type === "beforeunload") answer = { accept: true };
    else if ((this.next ??= this.source?.())) {
      answer = this.next;
      this.next = undefined;
      by = "choice";
    } else answer = { accept: this.policy.action === "accept", promptText: this.policy.promptText };
    const promptText = type === "prompt" && answer.accept ? (answer.promptText ?? e.defaultPrompt ?? "") : undefined;
    try {
      await session.send("Page.handleJavaScriptDialog", { accept: answer.accept, ...(promptText !== undefined ? { promptText } : {}) });
    } catch (error) {
      // Answered already (a dialog reported to two sessions) or its page is gone: nothing was answered here.
      if (by === "choice") this.next ??= answer;
      if (/not attached to an active page/i.test(String((error as Error)?.message))) for (const l of [...this.stuckListeners]) l(session);
      return;
    }
    const handled: HandledDialog = { type, message: e.message, url: e.url, accepted: answer.accept, ...(promptText !== undefined ? { promptText } : {}), by };
    for (const l of [...this.listeners]) {
      try {
        l(handled);
      } catch {
        // A listener's failure must not keep the others from hearing of the dialog.
      }
    }
  }
}
