/**
 * The key the server's data at rest (saved contexts) is sealed with: HKDF-SHA256 of `--data-key`; in a cluster
 * without one, of the shared cluster secret, so a context sealed by one replica opens on another; on a lone server, a
 * random key in `<dataDir>/data.key` (0600, created exclusively, so two servers starting at once agree).
 */
import { hkdfSync, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ServiceInvalidArgumentError } from "../../index.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { dataDirOf, type ServerConfig } from "../config.js";

const INFO_DATA_KEY = "svc server data key v1";
const INFO_CLUSTER = "svc server data key from the cluster secret v1";

function derive(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), info, 32));
}

export function resolveDataKey(config: ServerConfig, log: (line: string) => void): Buffer {
  if (config.dataKey !== undefined) return derive(config.dataKey, INFO_DATA_KEY);
  if (config.cluster) {
    log("data key: derived from the cluster secret (every replica shares it); --data-key sets one of its own");
    return derive(config.cluster.secret, INFO_CLUSTER);
  }
  const dir = dataDirOf(config);
  const path = join(dir, "data.key");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileAtomic(path, `${randomBytes(32).toString("base64url")}\n`, 0o600, { exclusive: true });
      log(`data key: generated ${path}`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const key = Buffer.from(readFileSync(path, "utf8").trim(), "base64url");
    if (key.length !== 32) throw new Error("not a 32-byte key in base64url");
    return key;
  } catch (e) {
    throw new ServiceInvalidArgumentError(`--data-dir: cannot use the data key ${path}: ${(e as Error).message}`, { cause: e });
  }
}
