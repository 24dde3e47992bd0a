/**
 * Which processes listen on TCP (Linux): a process's socket inodes (/proc/<pid>/fd → socket:[N]) against
 * the listening sockets of /proc/net/tcp and tcp6 (state 0A).
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** `root` and every process descending from it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name (field 2) may hold spaces and parentheses: the fields after its last ")" are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function socketInodes(pid: number): Set<string> {
  const out = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** Inode → local address of every listening TCP socket (IPv4 and IPv6). */
function listeningTcp(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[3] === "0A") out.set(f[9]!, `${file.endsWith("6") ? "tcp6" : "tcp"} ${f[1]}`);
    }
  }
  return out;
}

/** The listening TCP sockets held by `root` or its descendants: `pid tcp ADDR:PORT` (hex, as /proc shows). */
export function tcpListenersOf(root: number): string[] {
  const listening = listeningTcp();
  const found: string[] = [];
  for (const pid of processTree(root)) {
    for (const inode of socketInodes(pid)) {
      const where = listening.get(inode);
      if (where) found.push(`${pid} ${where}`);
    }
  }
  return found;
}
