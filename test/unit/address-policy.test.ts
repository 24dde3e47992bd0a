import { lookup } from "node:dns/promises";
import { describe, expect, it } from "vitest";
import { AddressPolicy, isPublicAddress } from "../../src/util/address-policy.js";

const REFUSED = [
  "127.0.0.1",
  "127.255.255.254",
  "0.0.0.0",
  "10.1.2.3",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "224.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "[::1]",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:0.0.0.0",
  "::ffff:a00:1",
  "::127.0.0.1",
  "64:ff9b::7f00:1",
  "2002:7f00:1::",
  "2002:a9fe:a9fe::1",
  "2001:0:4136:e378:8000:63bf:3fff:fdd2",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "ff02::1",
];
const PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];

describe("AddressPolicy", () => {
  it.each(REFUSED)("refuses %s", (a) => {
    expect(isPublicAddress(a)).toBe(false);
    expect(new AddressPolicy().refusal(a, [])).toMatch(/loopback, private or link-local/);
  });

  it.each(PUBLIC)("allows %s", (a) => {
    expect(isPublicAddress(a)).toBe(true);
    expect(new AddressPolicy().refusal(a, [])).toBeUndefined();
  });

  it("judges a name by every address it resolves to", () => {
    const p = new AddressPolicy();
    expect(p.refusal("example.test", ["93.184.216.34"])).toBeUndefined();
    expect(p.refusal("example.test", ["93.184.216.34", "127.0.0.1"])).toMatch(/example\.test \(127\.0\.0\.1\)/);
    expect(p.refusal("example.test", [])).toMatch(/did not resolve/);
  });

  it("short and decimal IPv4 forms resolve to loopback and are refused", async () => {
    for (const spelling of ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1"]) {
      const addresses = (await lookup(spelling, { all: true })).map((a) => a.address);
      expect(new AddressPolicy().refusal(spelling, addresses), spelling).toMatch(/127\.0\.0\.1/);
    }
    const local = (await lookup("localhost", { all: true })).map((a) => a.address);
    expect(new AddressPolicy().refusal("localhost", local)).toBeDefined();
  });

  it("the allowlist lets exactly what it names through", () => {
    const p = new AddressPolicy(["127.0.0.1:4567", "10.0.0.0/8", "intranet.corp", ".corp.example", "[::1]:80"]);
    expect(p.refusal("127.0.0.1", [], 4567)).toBeUndefined();
    expect(p.refusal("::ffff:127.0.0.1", [], 4567)).toBeUndefined();
    expect(p.refusal("127.0.0.1", [], 4568)).toBeDefined();
    expect(p.refusal("127.0.0.2", [], 4567)).toBeDefined();
    expect(p.refusal("10.9.8.7", [], 22)).toBeUndefined();
    expect(p.refusal("intranet.corp", ["192.168.0.5"], 443)).toBeUndefined();
    expect(p.refusal("wiki.corp.example", ["10.0.0.1"])).toBeUndefined();
    expect(p.refusal("corp.example.evil", ["192.168.0.1"])).toBeDefined();
    expect(p.refusal("::1", [], 80)).toBeUndefined();
    expect(p.refusal("::1", [], 81)).toBeDefined();
    expect(p.allowed).toEqual(["127.0.0.1:4567", "10.0.0.0/8", "intranet.corp", ".corp.example", "[::1]:80"]);
  });

  it("a malformed allowlist entry is named", () => {
    for (const bad of ["", "http://x", "10.0.0.0/33", "host:99999", "a b", "[nothost]:80"]) {
      expect(() => new AddressPolicy([bad]), bad).toThrow(/--allow-net: .* is not a host/);
    }
  });
});
