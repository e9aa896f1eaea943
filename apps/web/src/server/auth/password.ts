/**
 * Password hashing with Node's built-in scrypt (RFC 7914): memory-hard, maintained with Node itself,
 * nothing to download or compile at install. Hashes carry their parameters
 * (`scrypt$N$r$p$salt$hash`, base64url) so they can be raised later without breaking old ones.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** N = 2^15, r = 8: 32 MiB and tens of milliseconds per hash; OWASP's scrypt floor is N = 2^17 at r = 8, p = 1 … 2^15 keeps sign-in cheap on small hosts. */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEYLEN = 32;
const maxmem = (N: number, r: number, p: number) => 128 * N * r * p + 16 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = PARAMS;
  const key = await scrypt(password.normalize("NFKC"), salt, KEYLEN, { N, r, p, maxmem: maxmem(N, r, p) });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** Constant-time check; false for a malformed hash rather than throwing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N > 2 ** 20 || r > 32 || p > 16) return false;
  const want = Buffer.from(m[5]!, "base64url");
  const got = await scrypt(password.normalize("NFKC"), Buffer.from(m[4]!, "base64url"), want.length, {
    N,
    r,
    p,
    maxmem: maxmem(N, r, p),
  });
  return want.length === got.length && timingSafeEqual(want, got);
}

/** A dummy hash to verify against when the user does not exist, so timing does not reveal names. */
export const DUMMY_HASH =
  "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** 32 random bytes, base64url: session ids and API tokens. */
export const randomToken = (prefix = "") => `${prefix}${randomBytes(32).toString("base64url")}`;
