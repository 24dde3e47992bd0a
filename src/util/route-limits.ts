/**
 * The bounds on network routes (`svc network route`, the MCP route tool): here, not in store/routes.ts, so the
 * capability's schema (capabilities/routes.ts, loaded before any command is known) states the same numbers.
 */
export const ROUTE_LIMITS = { maxRoutes: 100, maxBodyBytes: 1_000_000, maxTotalBodyBytes: 10_000_000, maxPattern: 2_048, maxContentType: 256 } as const;
