/** URLs as people type them (commands/core/url.ts): one helper for every command that takes a URL. */
import { describe, expect, it } from "vitest";
import { checkUrl, looksLikeUrl, typedUrl } from "../../commands/core/url.js";

describe("URLs as typed", () => {
  it("a local address without a scheme means http://", () => {
    expect(checkUrl("localhost:3000/x")).toBe("http://localhost:3000/x");
    expect(checkUrl("127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    expect(checkUrl("localhost")).toBe("http://localhost");
    expect(checkUrl("app.localhost:5173/login?next=1")).toBe("http://app.localhost:5173/login?next=1");
    expect(checkUrl("[::1]:9000/")).toBe("http://[::1]:9000/");
    expect(typedUrl("https://localhost:3000/")).toBe("https://localhost:3000/");
    expect(checkUrl("about:blank")).toBe("about:blank");
  });

  it("a public host without a scheme is refused with a hint; other schemes are refused", () => {
    expect(() => checkUrl("example.com/page")).toThrow(/invalid URL "example.com\/page"/);
    try {
      checkUrl("example.com");
    } catch (e) {
      expect((e as { hint?: string }).hint).toMatch(/did you mean https:\/\/example\.com/);
    }
    expect(() => checkUrl("javascript:alert(1)")).toThrow(/^url: only http, https, file, data and about:blank URLs can be opened \(got javascript:\)$/);
    expect(() => checkUrl("readme")).toThrow(/not an absolute URL/);
  });

  it("a bare word that is not a host is an instruction, not a URL", () => {
    for (const word of ["readme.md", "setup.py", "notes.txt", "summarize", "the title", "package.json"]) expect(looksLikeUrl(word), word).toBe(false);
    for (const url of ["localhost:3000/x", "127.0.0.1:8080", "example.com", "docs.example.com/readme.md", "https://x.test/a", "data:text/html,<p>hi there</p>", "example.md:8080"]) {
      expect(looksLikeUrl(url), url).toBe(true);
    }
  });
});
