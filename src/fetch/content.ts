/**
 * What a response body is and how to read it: the media type from Content-Type (sniffed when missing or generic), the
 * charset from the BOM, the header, a `<meta charset>` in the first bytes, else UTF-8 (windows-1252 when the bytes
 * are not valid UTF-8). TextDecoder decodes: Node ships full ICU, so every WHATWG label works.
 */

/** html: HTML/XHTML; json: JSON; text: any other textual type; binary: nothing svc can give as text. */
export type ContentKind = "html" | "json" | "text" | "binary";

export interface MediaType {
  /** Lower-case `type/subtype`, "" when absent. */
  essence: string;
  charset: string | undefined;
}

export function parseContentType(header: string | null | undefined): MediaType {
  if (!header) return { essence: "", charset: undefined };
  const [type = "", ...params] = header.split(";");
  let charset: string | undefined;
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p);
    if (m) charset = m[1]!.toLowerCase();
  }
  return { essence: type.trim().toLowerCase(), charset };
}

const TEXT_APPLICATION = new Set([
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/csv",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/x-www-form-urlencoded",
]);

/** Types refused from the header alone, before the body is read. */
const BINARY_PREFIXES = ["image/", "audio/", "video/", "font/", "model/"];
const BINARY_APPLICATION = new Set([
  "application/pdf",
  "application/zip",
  "application/gzip",
  "application/x-gzip",
  "application/x-tar",
  "application/x-7z-compressed",
  "application/x-rar-compressed",
  "application/vnd.rar",
  "application/x-bzip2",
  "application/wasm",
  "application/msword",
  "application/x-msdownload",
  "application/vnd.ms-excel",
  "application/vnd.ms-powerpoint",
]);

/** The kind a media type declares; undefined when only the bytes can tell (missing, octet-stream, unknown application/*). */
export function declaredKind(essence: string): ContentKind | undefined {
  if (!essence) return undefined;
  if (essence === "text/html" || essence === "application/xhtml+xml") return "html";
  if (essence === "application/json" || essence === "text/json" || essence.endsWith("+json")) return "json";
  if (essence === "image/svg+xml") return "text";
  if (essence.startsWith("text/") || essence.endsWith("+xml") || TEXT_APPLICATION.has(essence)) return "text";
  if (BINARY_PREFIXES.some((p) => essence.startsWith(p)) || BINARY_APPLICATION.has(essence) || essence.startsWith("application/vnd.openxmlformats")) return "binary";
  return undefined;
}

const SNIFF_BYTES = 8192;

/** Decide from the bytes: a NUL or many control bytes make it binary; markup at the start makes it HTML. */
export function sniffKind(bytes: Uint8Array): Exclude<ContentKind, "json"> {
  const head = bytes.subarray(0, SNIFF_BYTES);
  let control = 0;
  for (const b of head) {
    if (b === 0) return "binary";
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) control++;
  }
  if (head.length && control / head.length > 0.02) return "binary";
  const start = latin1(head.subarray(0, 1024)).replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, "").trimStart().toLowerCase();
  if (/^<!doctype html|^<html[\s>]|^<head[\s>]|^<body[\s>]/.test(start) || (start.startsWith("<") && /<(head|body|title)[\s>]/.test(start))) return "html";
  return "text";
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

/** A TextDecoder for a label, or undefined when the label is not a known encoding. */
function decoderFor(label: string | undefined, fatal = false): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label, { fatal });
  } catch {
    return undefined;
  }
}

function bomEncoding(bytes: Uint8Array): { label: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { label: "utf-8", length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { label: "utf-16be", length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { label: "utf-16le", length: 2 };
  return undefined;
}

/** `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first 4 KiB. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = latin1(bytes.subarray(0, 4096));
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const m = /charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (!m) continue;
    const label = m[1]!.toLowerCase();
    // HTML: a meta that claims UTF-16 is read as UTF-8 (the bytes got this far as ASCII), x-user-defined as windows-1252.
    if (/^utf-?16/.test(label)) return "utf-8";
    if (label === "x-user-defined") return "windows-1252";
    return label;
  }
  return undefined;
}

/**
 * windows-1252's 0x80–0x9F (WHATWG): Node's TextDecoder decodes the label as ISO-8859-1 there (0x80 →
 * U+0080 instead of €), so these bytes are mapped here.
 */
const CP1252_HIGH = "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178";

function decodeWith(decoder: TextDecoder, bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  return decoder.encoding === "windows-1252" ? text.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!) : text;
}

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used. */
  encoding: string;
}

/** Bytes → text: BOM, then the header's charset, then (HTML) the meta charset, then UTF-8 / windows-1252. */
export function decodeBody(bytes: Uint8Array, media: MediaType, kind: ContentKind): Decoded {
  const bom = bomEncoding(bytes);
  if (bom) {
    const d = new TextDecoder(bom.label);
    return { text: d.decode(bytes.subarray(bom.length)), encoding: d.encoding };
  }
  // JSON is UTF-8 whatever a header says (RFC 8259), unless it says something TextDecoder knows.
  const declared = decoderFor(media.charset) ?? (kind === "html" ? decoderFor(metaCharset(bytes)) : undefined);
  if (declared) return { text: decodeWith(declared, bytes), encoding: declared.encoding };
  const utf8 = decoderFor("utf-8", true)!;
  try {
    return { text: utf8.decode(bytes), encoding: "utf-8" };
  } catch {
    const legacy = new TextDecoder("windows-1252");
    return { text: decodeWith(legacy, bytes), encoding: legacy.encoding };
  }
}

/** A short human name for a binary type, for refusals. */
export function describeType(essence: string): string {
  if (!essence || essence === "application/octet-stream") return "binary data";
  if (essence === "application/pdf") return "a PDF (application/pdf)";
  const top = essence.split("/")[0];
  if (top === "image" || top === "audio" || top === "video" || top === "font") return `${/^[aeiou]/.test(top) ? "an" : "a"} ${top} (${essence})`;
  return `binary content (${essence})`;
}
