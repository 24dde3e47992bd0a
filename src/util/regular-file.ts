/** A path as an absolute path when it names an existing regular file (relative to this process's directory), else undefined. */
import { statSync } from "node:fs";
import { resolve } from "node:path";

export function regularFile(path: string): string | undefined {
  const abs = resolve(path);
  try {
    return statSync(abs).isFile() ? abs : undefined;
  } catch {
    return undefined;
  }
}
