/**
 * Secrets the long-running commands take (issue 41). Any local user reads a process's arguments, but only its own
 * user its environment: so every secret flag has an environment and a file form (`--x-file PATH`, `-` for stdin), and
 * one given as an argument anyway is blanked from the visible command line, with a warning that it was visible at
 * start. The rule lives here once.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { ServiceInvalidArgumentError } from "../../src/base.js";

export interface SecretFlag {
  /** The argument form, e.g. `--api-key`. */
  flag: string;
  /** Its file form, e.g. `--api-key-file`. */
  fileFlag: string;
  /** The environment variable that gives it too, named in the warning. */
  env: string;
  /** Whether a value is secret at all (a Redis URL is only with credentials); default: always. */
  secret?: (value: string) => boolean;
  /** How the value shows in the command line once hidden; default `***`. */
  mask?: (value: string) => string;
  /** Several values (repeatable flag); a file holds one per line or comma-separated. */
  list?: true;
}

/** One secret as the command received it: its argument values and its file flag's path. */
export interface SecretGiven {
  spec: SecretFlag;
  args: readonly string[] | undefined;
  file: string | undefined;
}

/** A secret's value(s) and where they came from (the flag an error about them names). */
export interface SecretValue {
  values: string[];
  from: string;
}

/** Largest secret file (or stdin) read: keys are short; anything bigger is a wrong path. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

export interface TakenSecrets {
  /** Per secret given, in order: its value(s), or undefined (neither form: the caller falls back to env and config). */
  values: Array<SecretValue | undefined>;
  /**
   * The warning line about argument forms, for the caller to print once it has checked its flags and starts
   * (a usage error stays one line); the arguments themselves are hidden already.
   */
  warning: string | undefined;
}

/** The secrets given on the command line or in a file; argument forms are hidden from the command line first. */
export async function takeSecrets(command: string, given: readonly SecretGiven[]): Promise<TakenSecrets> {
  const stdin = given.filter((g) => g.file === "-");
  if (stdin.length > 1) throw new ServiceInvalidArgumentError(`${stdin.map((g) => g.spec.fileFlag).join(" and ")}: only one of them can read stdin (-)`);
  for (const g of given) {
    if (g.args?.length && g.file !== undefined) throw new ServiceInvalidArgumentError(`${g.spec.flag} and ${g.spec.fileFlag}: give one of them, not both`);
  }
  const warning = hideArguments(command, given);
  const values: Array<SecretValue | undefined> = [];
  for (const g of given) {
    if (g.file !== undefined) {
      const text = g.file === "-" ? checked(await readStdin(g.spec.fileFlag), g.spec.fileFlag, "stdin") : readSecretFile(g.file, g.spec.fileFlag);
      values.push({ values: g.spec.list ? text.split(/[\n,]/).map((v) => v.trim()).filter(Boolean) : [text], from: g.spec.fileFlag });
    } else values.push(g.args?.length ? { values: [...g.args], from: g.spec.flag } : undefined);
  }
  return { values, warning };
}

/**
 * A secret file's content without its final line break. Refused: a file group or others may read or
 * write (the secret may already have leaked), one that is not a regular file, one over the bound, an empty one.
 */
export function readSecretFile(path: string, fileFlag: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    throw new ServiceInvalidArgumentError(`${fileFlag}: cannot open ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { cause: e });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ServiceInvalidArgumentError(`${fileFlag}: ${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
      throw new ServiceInvalidArgumentError(`${fileFlag}: ${path} is open to group or others (mode ${mode}); chmod 600 ${path}`);
    }
    if (st.size > MAX_SECRET_FILE_BYTES) throw tooBig(fileFlag, path);
    const buf = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
    let n = 0;
    for (let got = 1; got > 0 && n <= MAX_SECRET_FILE_BYTES; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_SECRET_FILE_BYTES) throw tooBig(fileFlag, path);
    return checked(buf.subarray(0, n).toString("utf8"), fileFlag, path);
  } finally {
    closeSync(fd);
  }
}

/** stdin to its end (`--x-file -`), bounded like a file. */
async function readStdin(fileFlag: string): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of process.stdin) {
    n += (chunk as Buffer).length;
    if (n > MAX_SECRET_FILE_BYTES) {
      process.stdin.destroy();
      throw tooBig(fileFlag, "stdin");
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

const tooBig = (fileFlag: string, what: string) => new ServiceInvalidArgumentError(`${fileFlag}: ${what} holds more than ${MAX_SECRET_FILE_BYTES} bytes; a secret file holds the secret alone`);

/** The secret without the final line break a file or a pipe adds; an empty one is refused. */
function checked(text: string, fileFlag: string, what: string): string {
  const value = text.replace(/\r?\n$/, "");
  if (!value.trim()) throw new ServiceInvalidArgumentError(`${fileFlag}: ${what} is empty`);
  return value;
}

/**
 * On Linux, rewrites this process's command line without the secrets given as arguments (`process.title`
 * overwrites the argument memory /proc/PID/cmdline reads); the warning that they were readable meanwhile.
 */
function hideArguments(command: string, given: readonly SecretGiven[]): string | undefined {
  const shown = given.filter((g) => g.args?.some((v) => (g.spec.secret ?? (() => true))(v)));
  if (!shown.length) return undefined;
  const hidden = scrubCommandLine(shown.flatMap((g) => (g.args ?? []).map((v) => [v, (g.spec.mask ?? (() => "***"))(v)] as const)));
  const ways = shown.map((g) => `${g.spec.env} or ${g.spec.fileFlag} FILE (mode 0600)`).join("; ");
  return (
    `svc ${command}: warning: ${shown.map((g) => g.spec.flag).join(", ")} on the command line: any local user could read ${shown.length > 1 ? "them" : "it"} there while svc started` +
    `${hidden ? " (now hidden)" : " (this system cannot hide it)"}; give ${ways} instead\n`
  );
}

/** Rewrites /proc/self/cmdline with each secret masked; whether none of them is left in it. */
function scrubCommandLine(secrets: ReadonlyArray<readonly [string, string]>): boolean {
  const read = () => readFileSync("/proc/self/cmdline", "utf8");
  let args: string[];
  try {
    args = read().replace(/\0+$/, "").split("\0");
  } catch {
    return false;
  }
  const masked = args.map((a) => secrets.reduce((s, [value, mask]) => s.split(value).join(mask), a));
  if (masked.some((a, i) => a !== args[i])) process.title = masked.join(" ");
  try {
    const now = read();
    return secrets.every(([value]) => !now.includes(value));
  } catch {
    return false;
  }
}
