/**
 * Saved login state (`svc state save|load`): plain JSON, or sealed with AES-256-GCM under `state.key`, any passphrase
 * run through scrypt with a random salt per file. A versioned header line, authenticated with the ciphertext, tells
 * the two apart, so load says clearly when the key is missing or wrong. Written 0600, atomically.
 */
import { randomBytes, scryptSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { ServiceStateError } from "../errors.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { GCM_IV_BYTES, GCM_TAG_BYTES, gcmOpen, gcmSeal } from "../util/seal.js";
import { describeFsError } from "./files.js";

export const SEALED_HEADER = "svc-state v1 aes-256-gcm scrypt";
const KEY_HINT = "set it with `svc config set state.key …` (or SVC_STATE_KEY) to the key the file was saved with";

function deriveKey(passphrase: string, salt: Buffer): Buffer {
  return scryptSync(passphrase, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
}

/** `json` sealed under `passphrase`: the header line, then salt.iv.tag.ciphertext in base64url. */
export function sealState(json: string, passphrase: string): string {
  const salt = randomBytes(16);
  const { iv, tag, ct } = gcmSeal(deriveKey(passphrase, salt), json, SEALED_HEADER);
  const parts = [salt, iv, tag, ct].map((b) => b.toString("base64url"));
  return `${SEALED_HEADER}\n${parts.join(".")}\n`;
}

function isSealed(text: string): boolean {
  return text.startsWith("svc-state ");
}

/** The JSON inside a sealed file; a missing or wrong key, or a damaged file, is a STATE_ERROR naming `path`. */
export function openSealed(text: string, passphrase: string | undefined, path: string): string {
  const [header, body = ""] = text.split("\n");
  if (header !== SEALED_HEADER) throw new ServiceStateError(`${path}: unsupported state file format "${header}"`, { hint: "it was written by a newer svc" });
  if (passphrase === undefined) throw new ServiceStateError(`${path} is encrypted and no state key is configured`, { hint: KEY_HINT });
  const [salt, iv, tag, ct, extra] = body.trim().split(".").map((p) => Buffer.from(p, "base64url"));
  if (!salt || salt.length !== 16 || !iv || iv.length !== GCM_IV_BYTES || !tag || tag.length !== GCM_TAG_BYTES || !ct || extra) {
    throw new ServiceStateError(`${path}: damaged encrypted state file`);
  }
  try {
    return gcmOpen(deriveKey(passphrase, salt), { iv, tag, ct }, header).toString("utf8");
  } catch {
    throw new ServiceStateError(`${path}: wrong state key (or the file was altered): cannot decrypt`, { hint: KEY_HINT });
  }
}

/** Write a state file (0600, atomically), sealed when a passphrase is given. */
export function writeSavedState(path: string, json: string, passphrase: string | undefined): void {
  try {
    writeFileAtomic(path, passphrase === undefined ? json : sealState(json, passphrase), 0o600);
  } catch (e) {
    throw new ServiceStateError(`cannot write state file ${path}: ${describeFsError(e)}`, { cause: e });
  }
}

/** Read a state file: its JSON text (unsealed when it is encrypted). */
export function readSavedState(path: string, passphrase: string | undefined): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ServiceStateError(`cannot read state file ${path}: ${describeFsError(e)}`, { cause: e });
  }
  return isSealed(text) ? openSealed(text, passphrase, path) : text;
}
