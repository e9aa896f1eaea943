import { describe, expect, it } from "vitest";
import { normalizeAddress, parseTrustedPeers } from "./trusted-peers.js";

const peers = (text: string) => {
  const r = parseTrustedPeers(text);
  if (!r.ok) throw new Error(r.error);
  return r.peers;
};

describe("parseTrustedPeers", () => {
  it.each([
    ["127.0.0.1", ["127.0.0.1/32"]],
    ["10.0.0.0/8, 192.168.1.0/24", ["10.0.0.0/8", "192.168.1.0/24"]],
    ["::1", ["::1/128"]],
    ["fd00::/8,::ffff:10.1.2.3", ["fd00::/8", "10.1.2.3/32"]],
    ["0.0.0.0/0", ["0.0.0.0/0"]],
  ])("%j is valid", (text, entries) => {
    expect(peers(text).entries).toEqual(entries);
  });

  it.each([
    ["", /lists no address/],
    ["proxy.internal", /"proxy.internal" is not an IP address or CIDR block/],
    ["10.0.0.0/33", /prefix length must be 0 to 32/],
    ["fd00::/129", /prefix length must be 0 to 128/],
    ["10.0.0.0/", /prefix length/],
    ["10.0.0.0/8x", /prefix length/],
    ["10.0.0.0/-1", /prefix length/],
    ["256.0.0.1", /not an IP address/],
    ["10.0.0.0/8,,oops", /"oops" is not an IP address/],
  ])("%j is refused", (text, error) => {
    const r = parseTrustedPeers(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(error);
  });
});

describe("TrustedPeers.has", () => {
  it.each([
    ["10.0.0.0/8", "10.200.3.4", true],
    ["10.0.0.0/8", "11.0.0.1", false],
    ["10.0.0.0/8", "::ffff:10.0.0.5", true],
    ["127.0.0.1", "127.0.0.1", true],
    ["127.0.0.1", "127.0.0.2", false],
    ["127.0.0.1", "::1", false],
    ["::1", "::1", true],
    ["::1", "127.0.0.1", false],
    ["fd00::/8", "fd12:3456::1", true],
    ["fd00::/8", "fe80::1", false],
    ["fe80::/10", "fe80::1%eth0", true],
    ["10.0.0.0/8", "", false],
    ["10.0.0.0/8", "unknown", false],
    ["0.0.0.0/0", "203.0.113.9", true],
  ])("%s has %j: %s", (list, address, expected) => {
    expect(peers(list).has(address)).toBe(expected);
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4", () => {
    expect(normalizeAddress("::FFFF:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("::ffff:c000:201")).toBe("::ffff:c000:201");
  });
});
