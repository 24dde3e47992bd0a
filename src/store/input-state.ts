/**
 * What low-level input left behind in a CLI session, per page: where the pointer is, which mouse buttons and
 * modifier keys are held (`svc mouse down` then, in another command, `svc mouse move` drags). Kept in
 * `<state>/sessions/<id>.input` because each command is its own Service: the next one picks up where the
 * last one left the pointer. Validated on read; a corrupt file is a STATE_ERROR naming it.
 */
import { ServiceStateError } from "../errors.js";
import { ensureDir, readIfExists, resolveStateDir, writeStateFile } from "./files.js";
import { inputStatePath, sessionsDir } from "./session-records.js";

export interface InputState {
  x: number;
  y: number;
  /** Mouse buttons held, as the DOM's `buttons` bit mask (1 left, 2 right, 4 middle). */
  buttons: number;
  /** Modifier keys held, as the Input domain's bits (1 Alt, 2 Control, 4 Meta, 8 Shift). */
  modifiers: number;
}

/** Pages kept per session (the most recently written). */
const MAX_PAGES = 32;

const REST: InputState = { x: 0, y: 0, buttons: 0, modifiers: 0 };

function valid(v: unknown): v is InputState {
  const s = v as Partial<InputState> | null;
  return (
    !!s &&
    typeof s === "object" &&
    Number.isFinite(s.x) &&
    Number.isFinite(s.y) &&
    Number.isInteger(s.buttons) &&
    s.buttons! >= 0 &&
    s.buttons! <= 7 &&
    Number.isInteger(s.modifiers) &&
    s.modifiers! >= 0 &&
    s.modifiers! <= 15
  );
}

function read(path: string): Record<string, InputState> {
  const text = readIfExists(path);
  if (text === undefined) return {};
  const hint = "delete the file; the pointer starts again at 0,0";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceStateError(`corrupt input state ${path}: not JSON`, { cause: e, hint });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ServiceStateError(`corrupt input state ${path}: expected an object`, { hint });
  for (const [page, s] of Object.entries(value)) {
    if (!valid(s)) throw new ServiceStateError(`corrupt input state ${path}: ${page}: expected {x, y, buttons, modifiers}`, { hint });
  }
  return value as Record<string, InputState>;
}

export interface InputStateStore {
  /** The page's state (the pointer at 0,0, nothing held, when no command moved it yet). */
  load(pageId: string): InputState;
  save(pageId: string, state: InputState): void;
}

export function sessionInputStore(id: string, root: string = resolveStateDir()): InputStateStore {
  const path = inputStatePath(root, id);
  return {
    load(pageId) {
      return read(path)[pageId] ?? { ...REST };
    },
    save(pageId, state) {
      const pages = read(path);
      delete pages[pageId];
      const kept = Object.entries(pages).slice(-(MAX_PAGES - 1));
      ensureDir(sessionsDir(root));
      writeStateFile(path, `${JSON.stringify(Object.fromEntries([...kept, [pageId, state]]))}\n`);
    },
  };
}
