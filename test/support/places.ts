/**
 * svc's knowledge of where each target is (src/server/features/target-watch.ts TargetPlaces), as a test sets it
 * for the CDP filter: every target known and a tenant's, already read up to date; `tabs` says which are tabs.
 */
import type { TargetPlaces } from "../../src/server/features/target-watch.js";

export function openPlaces(tabs: (targetId: string) => boolean = () => false): TargetPlaces {
  return {
    caughtUp: () => undefined,
    isTab: tabs,
    refusal: () => undefined,
    known: () => true,
    whenKnown: () => Promise.resolve(),
    addressed: () => {},
  };
}
