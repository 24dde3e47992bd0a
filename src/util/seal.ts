/**
 * The one AES-256-GCM implementation (state files, the server's saved contexts): a random 96-bit IV per
 * message, the tag checked on open, and associated data binding the ciphertext to where it belongs (a
 * header, a key fingerprint and id), so a sealed blob moved elsewhere does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export interface Sealed {
  iv: Buffer;
  tag: Buffer;
  ct: Buffer;
}

export const GCM_IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;

/** `plain` encrypted under a 32-byte `key`, authenticated together with `aad`. */
export function gcmSeal(key: Buffer, plain: string | Uint8Array, aad: string): Sealed {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([typeof plain === "string" ? cipher.update(plain, "utf8") : cipher.update(plain), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ct };
}

/** The plaintext; throws when the key is wrong, the data was altered, or `aad` differs from the sealing one. */
export function gcmOpen(key: Buffer, sealed: Sealed, aad: string): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.iv);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ct), decipher.final()]);
}

/** One buffer: iv ‖ tag ‖ ciphertext (binary stores: files, Redis values). */
export function gcmSealBytes(key: Buffer, plain: Uint8Array, aad: string): Buffer {
  const { iv, tag, ct } = gcmSeal(key, plain, aad);
  return Buffer.concat([iv, tag, ct]);
}

export function gcmOpenBytes(key: Buffer, data: Uint8Array, aad: string): Buffer {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length < GCM_IV_BYTES + GCM_TAG_BYTES) throw new Error("sealed data too short");
  return gcmOpen(key, { iv: b.subarray(0, GCM_IV_BYTES), tag: b.subarray(GCM_IV_BYTES, GCM_IV_BYTES + GCM_TAG_BYTES), ct: b.subarray(GCM_IV_BYTES + GCM_TAG_BYTES) }, aad);
}
