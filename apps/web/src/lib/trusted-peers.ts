/**
 * The addresses an auth proxy's identity headers are accepted from (UNTORN_TRUSTED_PROXIES): a comma
 * list of CIDR blocks or single addresses, IPv4 or IPv6, matched with Node's net.BlockList. An
 * IPv4-mapped IPv6 peer (`::ffff:10.0.0.5`, what a dual-stack socket reports) matches as its IPv4.
 */
import { BlockList, isIP } from "node:net";

export interface TrustedPeers {
  /** The entries as configured, normalised (`10.0.0.0/8`, `::1/128`). */
  readonly entries: readonly string[];
  has(address: string): boolean;
}

export type TrustedPeersParse = { ok: true; peers: TrustedPeers } | { ok: false; error: string };

const MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:a.b.c.d` as `a.b.c.d`; a zone id (`fe80::1%eth0`) dropped; anything else as is. */
export function normalizeAddress(address: string): string {
  const a = address.trim().replace(/%.*$/, "");
  return MAPPED.exec(a)?.[1] ?? a;
}

export function parseTrustedPeers(text: string): TrustedPeersParse {
  const list = new BlockList();
  const entries: string[] = [];
  const items = text
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (items.length === 0) return { ok: false, error: "lists no address" };
  for (const item of items) {
    const slash = item.indexOf("/");
    const address = normalizeAddress(slash < 0 ? item : item.slice(0, slash));
    const family = isIP(address);
    if (family === 0)
      return {
        ok: false,
        error: `"${item.slice(0, 100)}" is not an IP address or CIDR block (a.b.c.d/n, x:y::/n)`,
      };
    const max = family === 4 ? 32 : 128;
    const prefixText = slash < 0 ? String(max) : item.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max)
      return { ok: false, error: `"${item.slice(0, 100)}": the prefix length must be 0 to ${max}` };
    const prefix = Number(prefixText);
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
    entries.push(`${address}/${prefix}`);
  }
  return {
    ok: true,
    peers: {
      entries,
      has(peer: string) {
        const a = normalizeAddress(peer);
        const family = isIP(a);
        if (family === 0) return false;
        return list.check(a, family === 4 ? "ipv4" : "ipv6");
      },
    },
  };
}
