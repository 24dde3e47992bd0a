/** Media types and charsets on bytes alone: what a body is, and how it is decoded. */
import { describe, expect, it } from "vitest";
import { declaredKind, decodeBody, metaCharset, parseContentType, sniffKind } from "../../src/fetch/content.js";

const bytes = (s: string, enc: BufferEncoding = "utf8") => new Uint8Array(Buffer.from(s, enc));

describe("content types", () => {
  it("parses type and charset", () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ essence: "text/html", charset: "iso-8859-1" });
    expect(parseContentType("application/json")).toEqual({ essence: "application/json", charset: undefined });
    expect(parseContentType(null)).toEqual({ essence: "", charset: undefined });
  });

  it.each([
    ["text/html", "html"],
    ["application/xhtml+xml", "html"],
    ["application/json", "json"],
    ["application/ld+json", "json"],
    ["text/plain", "text"],
    ["text/markdown", "text"],
    ["text/csv", "text"],
    ["application/xml", "text"],
    ["application/rss+xml", "text"],
    ["image/svg+xml", "text"],
    ["image/png", "binary"],
    ["application/pdf", "binary"],
    ["video/mp4", "binary"],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "binary"],
    ["application/octet-stream", undefined],
    ["", undefined],
  ])("%s → %s", (type, kind) => {
    expect(declaredKind(type)).toBe(kind);
  });

  it("sniffs bytes: NUL → binary, markup → html, else text", () => {
    expect(sniffKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBe("binary");
    expect(sniffKind(bytes("\n  <!DOCTYPE html><p>x"))).toBe("html");
    expect(sniffKind(bytes("<html lang=en><body>x"))).toBe("html");
    expect(sniffKind(bytes("a < b and c > d"))).toBe("text");
    expect(sniffKind(bytes("{\"a\": 1}"))).toBe("text");
  });
});

describe("charsets", () => {
  it("meta charset, both forms, in the first bytes", () => {
    expect(metaCharset(bytes('<meta charset="Shift_JIS">'))).toBe("shift_jis");
    expect(metaCharset(bytes('<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-2">'))).toBe("iso-8859-2");
    expect(metaCharset(bytes('<meta charset="utf-16">'))).toBe("utf-8"); // HTML: a UTF-16 meta means UTF-8
    expect(metaCharset(bytes('<meta name="viewport" content="width=device-width">'))).toBeUndefined();
  });

  it("BOM first, over anything declared", () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from("hé", "utf16le")]);
    expect(decodeBody(utf16, { essence: "text/plain", charset: "iso-8859-1" }, "text")).toEqual({ text: "hé", encoding: "utf-16le" });
    expect(decodeBody(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("ü")]), { essence: "", charset: undefined }, "text")).toEqual({ text: "ü", encoding: "utf-8" });
  });

  it("the header's charset, then the meta's (HTML only)", () => {
    const latin = bytes('<meta charset="iso-8859-1"><p>caf\u00e9</p>', "latin1");
    expect(decodeBody(latin, { essence: "text/html", charset: undefined }, "html").text).toContain("café");
    expect(decodeBody(bytes("\u00e9", "latin1"), { essence: "text/plain", charset: "latin1" }, "text")).toEqual({ text: "é", encoding: "windows-1252" });
    const sjis = new Uint8Array([0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    expect(decodeBody(sjis, { essence: "text/html", charset: "shift_jis" }, "html")).toEqual({ text: "日本", encoding: "shift_jis" });
  });

  it("windows-1252 maps 0x80–0x9F to the right characters (Node's TextDecoder does not)", () => {
    const d = decodeBody(new Uint8Array([0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x99, 0x9f]), { essence: "text/plain", charset: "windows-1252" }, "text");
    expect(d.text).toBe("€…‘’“”–—™Ÿ");
  });

  it("undeclared: UTF-8 when the bytes are valid UTF-8, else windows-1252; an unknown label is ignored", () => {
    expect(decodeBody(bytes("naïve ✓"), { essence: "text/plain", charset: undefined }, "text")).toEqual({ text: "naïve ✓", encoding: "utf-8" });
    expect(decodeBody(new Uint8Array([0x6e, 0x61, 0xef, 0x76, 0x65]), { essence: "text/plain", charset: undefined }, "text")).toEqual({ text: "naïve", encoding: "windows-1252" });
    expect(decodeBody(bytes("ok ✓"), { essence: "text/plain", charset: "no-such-charset" }, "text")).toEqual({ text: "ok ✓", encoding: "utf-8" });
  });
});
