/**
 * The one way svc serve opens a Redis connection (ioredis): the session store, saved contexts and Stagehand
 * 4's cache each hold one, with their own command timeout. It connects when asked (startup), and a failed
 * connect reports the socket's own error (ECONNREFUSED, ENOTFOUND …), not "Connection is closed". Later
 * errors reach each command's caller; the client's reconnect events are only listened to.
 */
import { Redis } from "ioredis";

export interface RedisClient {
  readonly redis: Redis;
  /** Connects and checks Redis answers; throws the socket's error when it does not. */
  connect(): Promise<void>;
}

export function openRedis(url: string, commandTimeoutMs: number): RedisClient {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 5000, commandTimeout: commandTimeoutMs, maxRetriesPerRequest: 1 });
  let lastError: Error | undefined;
  redis.on("error", (e: Error) => (lastError = e));
  return {
    redis,
    async connect() {
      try {
        await redis.connect();
        await redis.ping();
      } catch (e) {
        throw lastError ?? e;
      }
    },
  };
}
