/**
 * Every library error code has an exit code and an HTTP status (the maps are typed as complete; this
 * checks the runtime objects too, and that every error class in the public API carries a listed code).
 */
import { describe, expect, it } from "vitest";
import * as svc from "../../src/index.js";
import { STATUS_BY_CODE } from "../../src/server/http/errors.js";

(globalThis as { svcEmbedded?: boolean }).svcEmbedded = true;
const { exitCodeOf } = await import("../../commands/main.js");

describe("error codes", () => {
  it("each code has an exit code and a status", () => {
    for (const code of svc.ERROR_CODES) {
      expect(Object.hasOwn(STATUS_BY_CODE, code), code).toBe(true);
      expect(exitCodeOf(code), code).toBeGreaterThan(0);
    }
    expect(exitCodeOf("INVALID_ARGUMENT")).toBe(2);
    expect(exitCodeOf("TIMEOUT")).toBe(7);
    expect(exitCodeOf("NOT_A_CODE")).toBe(1);
    expect(STATUS_BY_CODE.SESSION_NOT_FOUND).toBe(404);
  });

  it("every exported error class carries a listed code", () => {
    const classes = (Object.values(svc) as unknown[]).filter((v): v is (new (m: string) => svc.ServiceError) & { name: string } => typeof v === "function" && v.prototype instanceof svc.ServiceError);
    expect(classes.length).toBeGreaterThan(25);
    for (const C of classes) {
      const e = (C as unknown) === svc.ServiceApiError ? new svc.ServiceApiError(500, "x") : new C("x");
      expect(svc.ERROR_CODES, C.name).toContain(e.code);
    }
  });
});
