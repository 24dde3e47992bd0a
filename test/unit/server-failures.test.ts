/**
 * The server's domain failures (src/server/failures.ts) become the same answers the HTTP errors they
 * replaced gave: status, code (the status's own unless a precise one is named), message and retry-after.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceInvalidArgumentError } from "../../src/index.js";
import { clientMessage, ConflictError, FAILURE_KINDS, GoneError, NotFoundError, OverloadedError, parseWith, ServerFailure, UnavailableError } from "../../src/server/failures.js";
import { errorResponse, HttpError, isDeliberate, STATUS_BY_KIND } from "../../src/server/http/errors.js";

describe("server failures as HTTP answers", () => {
  it("each kind answers as the HttpError of its status did", () => {
    for (const kind of FAILURE_KINDS) {
      const status = STATUS_BY_KIND[kind];
      expect(errorResponse(new ServerFailure(kind, "what happened"))).toEqual(errorResponse(new HttpError(status, "what happened")));
    }
    expect(errorResponse(new NotFoundError("session x not found"))).toEqual({ status: 404, message: "session x not found", code: "NOT_FOUND", headers: {} });
    expect(errorResponse(new GoneError("gone", { code: "REPLICA_GONE" }))).toMatchObject({ status: 410, code: "REPLICA_GONE" });
  });

  it("a precise code and retry-after travel as HttpError's code and header did", () => {
    expect(errorResponse(new OverloadedError("full", { code: "QUEUE_FULL", retryAfterS: 5 }))).toEqual(errorResponse(new HttpError(429, "full", { "retry-after": "5" }, "QUEUE_FULL")));
    expect(errorResponse(new UnavailableError("closing", { retryAfterS: 5 }))).toEqual({ status: 503, message: "closing", code: "UNAVAILABLE", headers: { "retry-after": "5" } });
    expect(errorResponse(new ConflictError("in use", { code: "CONTEXT_IN_USE" }))).toMatchObject({ status: 409, code: "CONTEXT_IN_USE", headers: {} });
  });

  it("bad input (the library's class) answers exactly as HttpError(400) did", () => {
    expect(errorResponse(new ServiceInvalidArgumentError("file: not a zip"))).toEqual(errorResponse(new HttpError(400, "file: not a zip")));
  });

  it("domain validation (parseWith) throws the library's bad input, which answers 400 naming the field", () => {
    const schema = z.object({ region: z.string() });
    expect(parseWith(schema, { region: "eu" })).toEqual({ region: "eu" });
    let thrown: unknown;
    try {
      parseWith(schema, { region: 1 }, "browserbaseSessionCreateParams");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ServiceInvalidArgumentError);
    expect(errorResponse(thrown)).toMatchObject({ status: 400, code: "INVALID_ARGUMENT", message: expect.stringMatching(/^browserbaseSessionCreateParams\.region: /) });
  });

  it("a failure's message as a client reads it (a session's replay records it): masked unless deliberate, cut short", () => {
    expect(clientMessage(new NotFoundError("session x not found"))).toBe("session x not found");
    expect(clientMessage(new ServiceInvalidArgumentError("frameId: no such page"))).toBe(errorResponse(new ServiceInvalidArgumentError("frameId: no such page")).message);
    expect(clientMessage(new Error("secret internals"))).toBe("internal server error");
    expect(clientMessage(new GoneError("x".repeat(10_000))).length).toBeLessThanOrEqual(301);
  });

  it("deliberate errors are told from unexpected ones (which are logged and masked)", () => {
    expect(isDeliberate(new NotFoundError("x"))).toBe(true);
    expect(isDeliberate(new HttpError(502, "x"))).toBe(true);
    expect(isDeliberate(new Error("x"))).toBe(false);
    expect(errorResponse(new Error("secret internals"))).toMatchObject({ status: 500, message: "internal server error" });
  });
});
