import { expect } from "vitest";
import { ServiceError } from "../../src/errors.js";

/** Awaits a rejection and returns it as the ServiceError it must be (fails the test when `work` resolves). */
export async function rejection(work: Promise<unknown>): Promise<ServiceError> {
  const e = await work.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, "expected a rejection").toBeInstanceOf(ServiceError);
  return e as ServiceError;
}
