/**
 * A CLI session's answer for its next JavaScript dialog (`svc dialog accept|dismiss [text]` when no dialog is
 * open): a small file, `sessions/<id>.dialog`, taken (read once and removed) by whichever process answers
 * the next dialog — a command's Service, or the session's host between commands. Taking renames
 * the file first, so two processes never both use one answer.
 */
import { readFileSync, renameSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dialogAnswerPath } from "./session-records.js";
import { writeStateFile } from "./files.js";

export interface StoredDialogAnswer {
  accept: boolean;
  promptText?: string;
}

export interface DialogAnswerStore {
  save(answer: StoredDialogAnswer): void;
  /** The stored answer, removed; undefined when there is none (or another process took it first). */
  take(): StoredDialogAnswer | undefined;
  /** The stored answer, left in place. */
  peek(): StoredDialogAnswer | undefined;
}

function parse(text: string): StoredDialogAnswer | undefined {
  try {
    const v = JSON.parse(text) as Partial<StoredDialogAnswer>;
    if (typeof v.accept !== "boolean") return undefined;
    return { accept: v.accept, ...(typeof v.promptText === "string" ? { promptText: v.promptText } : {}) };
  } catch {
    return undefined;
  }
}

export function sessionDialogAnswer(id: string, root: string): DialogAnswerStore {
  const path = dialogAnswerPath(root, id);
  const read = (p: string) => {
    try {
      return parse(readFileSync(p, "utf8"));
    } catch {
      return undefined;
    }
  };
  return {
    save: (answer) => writeStateFile(path, `${JSON.stringify(answer)}\n`),
    peek: () => read(path),
    take() {
      const taken = `${path}.${randomBytes(4).toString("hex")}.taken`;
      try {
        renameSync(path, taken);
      } catch {
        return undefined;
      }
      try {
        return read(taken);
      } finally {
        rmSync(taken, { force: true });
      }
    },
  };
}
