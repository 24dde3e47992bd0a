import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { startRedis, useRedis } from "../support/redis.js";

describe("test/support/redis (a real redis-server for tests)", () => {
  const redis = useRedis();

  it("answers commands on its loopback port", async () => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    try {
      await client.set("k", "v");
      expect(await client.get("k")).toBe("v");
    } finally {
      client.disconnect();
    }
  });

  it("stops when closed", async () => {
    const other = await startRedis();
    await other.close();
    const client = new Redis(other.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const refused = new Promise<Error>((resolve) => client.once("error", resolve));
    await expect(client.connect()).rejects.toThrow();
    expect((await refused).message).toMatch(/ECONNREFUSED/);
    client.disconnect();
  });
});
