/**
 * Which addresses a tenant of a shared server may reach: the public internet only, unless the operator allows more
 * (`--allow-net`, docs/isolation.md). Decided on the addresses a connection really goes to, after DNS, never on a
 * URL's spelling (`127.1`, `0x7f.0.0.1`, `[::ffff:7f00:1]` are all loopback here). An IPv6 form embedding a refused
 * IPv4 is refused; Teredo always, its address being obfuscated.
 */
import { isIP } from "node:net";

interface Cidr {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

interface AllowEntry {
  text: string;
  host?: string;
  suffix?: string;
  cidr?: Cidr;
  port?: number;
}

const V4_REFUSED = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
].map(parseCidr);

const V6_REFUSED = [
  "::/128",
  "::1/128",
  "100::/64",
  "2001::/32",
  "2001:db8::/32",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
].map(parseCidr);

/** IPv6 prefixes whose low bits carry an IPv4 address: [prefix, where the IPv4 address sits (bit shift)]. */
const V6_EMBEDDING: Array<[Cidr, number]> = [
  [parseCidr("::ffff:0:0/96"), 0],
  [parseCidr("::/96"), 0],
  [parseCidr("64:ff9b::/96"), 0],
  [parseCidr("64:ff9b:1::/48"), 0],
  [parseCidr("2002::/16"), 80],
];

export class AddressPolicy {
  private readonly allow: AllowEntry[];

  /** Throws an Error naming the first entry that is not of a form above. */
  constructor(allow: readonly string[] = []) {
    this.allow = allow.map(parseAllowEntry);
  }

  /** The allowlist as given (for messages and logs). */
  get allowed(): string[] {
    return this.allow.map((a) => a.text);
  }

  /**
   * Why connecting to `host` (as named by the client) at `addresses` (what it resolved to) on `port` is
   * refused, or undefined when it may go ahead. Every address must pass: a name answering one public and
   * one private address is refused, since the connection may take either.
   */
  refusal(host: string, addresses: readonly string[], port?: number): string | undefined {
    const bare = stripBrackets(host).toLowerCase().replace(/\.$/, "");
    if (this.allow.some((a) => matchesName(a, bare, port))) return undefined;
    const all = isIP(bare) ? [bare, ...addresses] : addresses;
    if (all.length === 0) return `${short(bare)} did not resolve to any address`;
    for (const address of all) {
      if (this.allow.some((a) => matchesAddress(a, address, port))) continue;
      if (!isPublicAddress(address)) {
        const at = address === bare ? bare : `${short(bare)} (${address})`;
        return `${at} is a loopback, private or link-local address, which this server's browsers and fetches do not reach (the operator can allow it with --allow-net)`;
      }
    }
    return undefined;
  }
}

/** True for an address on the public internet (see the module comment for what is not). */
export function isPublicAddress(address: string): boolean {
  const a = stripBrackets(address);
  const family = isIP(a);
  if (family === 4) return !V4_REFUSED.some((c) => inCidr(c, 4, v4Bits(a)));
  if (family !== 6) return false;
  const bits = v6Bits(a);
  if (V6_REFUSED.some((c) => inCidr(c, 6, bits))) return false;
  for (const [prefix, shift] of V6_EMBEDDING) {
    if (inCidr(prefix, 6, bits)) return isPublicAddress(v4Text((bits >> BigInt(shift)) & 0xffffffffn));
  }
  return true;
}

function matchesName(a: AllowEntry, host: string, port: number | undefined): boolean {
  if (a.port !== undefined && a.port !== port) return false;
  if (a.host !== undefined) return a.host === host;
  if (a.suffix !== undefined) return host.endsWith(a.suffix);
  return false;
}

function matchesAddress(a: AllowEntry, address: string, port: number | undefined): boolean {
  if (!a.cidr || (a.port !== undefined && a.port !== port)) return false;
  const family = isIP(address);
  if (family === 4) return inCidr(a.cidr, 4, v4Bits(address));
  if (family === 6) {
    const bits = v6Bits(address);
    if (inCidr(a.cidr, 6, bits)) return true;
    // An allowed IPv4 address is also allowed in its IPv4-mapped spelling.
    return a.cidr.family === 4 && inCidr(V6_EMBEDDING[0]![0], 6, bits) && inCidr(a.cidr, 4, bits & 0xffffffffn);
  }
  return false;
}

function parseAllowEntry(text: string): AllowEntry {
  const t = text.trim().toLowerCase();
  const bad = () => new Error(`--allow-net: "${short(text)}" is not a host, host:port, IP, IP:port, [IPv6]:port, CIDR or .suffix`);
  if (!t) throw bad();
  if (t.startsWith(".")) {
    if (!/^(\.[a-z0-9-]+)+$/.test(t)) throw bad();
    return { text, suffix: t };
  }
  if (t.includes("/")) {
    try {
      return { text, cidr: parseCidr(t) };
    } catch {
      throw bad();
    }
  }
  let host = t;
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  const withPort = /^([^:]+):(\d+)$/.exec(t);
  if (v6) [host, port] = [v6[1]!, v6[2] === undefined ? undefined : Number(v6[2])];
  else if (withPort) [host, port] = [withPort[1]!, Number(withPort[2])];
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535)) throw bad();
  const family = isIP(host);
  if (family) return { text, cidr: parseCidr(`${host}/${family === 4 ? 32 : 128}`), ...(port !== undefined ? { port } : {}) };
  if (v6 || !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) throw bad();
  return { text, host, ...(port !== undefined ? { port } : {}) };
}

function parseCidr(text: string): Cidr {
  const [addr = "", len = ""] = text.split("/");
  const family = isIP(addr);
  const prefix = Number(len);
  const max = family === 4 ? 32 : 128;
  if (!family || !/^\d+$/.test(len) || prefix > max) throw new Error(`not a CIDR: ${text}`);
  return { family: family as 4 | 6, bits: family === 4 ? v4Bits(addr) : v6Bits(addr), prefix };
}

function inCidr(c: Cidr, family: 4 | 6, bits: bigint): boolean {
  if (c.family !== family) return false;
  const width = BigInt(family === 4 ? 32 : 128);
  const shift = width - BigInt(c.prefix);
  return bits >> shift === c.bits >> shift;
}

function v4Bits(a: string): bigint {
  return a.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v4Text(bits: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 0xffn)).join(".");
}

/** An IPv6 address (any valid spelling, a zone id dropped, a dotted IPv4 tail allowed) as 128 bits. */
function v6Bits(address: string): bigint {
  let a = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const v4 = v4Bits(dotted[1]!);
    a = `${a.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}

function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, "");
}

function short(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
