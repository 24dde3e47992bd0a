/**
 * The secrets of `svc serve`: its API keys, data key, cluster secret and a Redis store URL with a password.
 * Each has its environment variable, a file form and its argument form (see secret-flags.ts for the rule).
 */
import { type SecretFlag, type SecretValue, takeSecrets } from "../core/secret-flags.js";

export interface ServeSecretFlags {
  apiKey?: string[];
  apiKeyFile?: string;
  dataKey?: string;
  dataKeyFile?: string;
  clusterSecret?: string;
  clusterSecretFile?: string;
  store?: string;
  storeFile?: string;
}

/** A URL's credentials masked (`redis://***@host:6379`), for messages and the visible command line. */
export const maskUrlCredentials = (url: string): string => url.replace(/\/\/[^@/]*@/, "//***@");

const API_KEY: SecretFlag = { flag: "--api-key", fileFlag: "--api-key-file", env: "SVC_API_KEYS", list: true };
const DATA_KEY: SecretFlag = { flag: "--data-key", fileFlag: "--data-key-file", env: "SVC_DATA_KEY" };
const CLUSTER_SECRET: SecretFlag = { flag: "--cluster-secret", fileFlag: "--cluster-secret-file", env: "SVC_CLUSTER_SECRET" };
const STORE: SecretFlag = { flag: "--store", fileFlag: "--store-file", env: "SVC_STORE", secret: (v) => maskUrlCredentials(v) !== v, mask: maskUrlCredentials };

export interface ServeSecrets {
  apiKeys: SecretValue | undefined;
  dataKey: SecretValue | undefined;
  clusterSecret: SecretValue | undefined;
  store: SecretValue | undefined;
  /** To print as the server starts (secret-flags.ts). */
  warning: string | undefined;
}

/** The secrets given by flag or file (undefined: fall back to the environment and config), argument forms hidden. */
export async function serveSecrets(flags: ServeSecretFlags): Promise<ServeSecrets> {
  const one = (v: string | undefined) => (v === undefined ? undefined : [v]);
  const { values, warning } = await takeSecrets("serve", [
    { spec: API_KEY, args: flags.apiKey, file: flags.apiKeyFile },
    { spec: DATA_KEY, args: one(flags.dataKey), file: flags.dataKeyFile },
    { spec: CLUSTER_SECRET, args: one(flags.clusterSecret), file: flags.clusterSecretFile },
    { spec: STORE, args: one(flags.store), file: flags.storeFile },
  ]);
  const [apiKeys, dataKey, clusterSecret, store] = values;
  return { apiKeys, dataKey, clusterSecret, store, warning };
}
