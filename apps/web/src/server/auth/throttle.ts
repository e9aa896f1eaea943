/**
 * Sign-in throttling. A password attempt is counted before its password is checked: the store reserves
 * it atomically against the account's limit (and a looser one for the client address), so parallel
 * guesses on any number of consoles check at most MAX_FAILURES passwords per account per window; a good
 * password gives its reservation back. Bad API tokens count in a bucket of their own per address, so
 * made-up tokens never lock anyone's password sign-in. Each failure is logged (what, for which account,
 * from where; never the secret), and a failed password for an existing account goes to the audit log.
 * The counts live in the database, so every console on one PostgreSQL sees the same ones.
 */
import type { Store } from "@untorn/store/store";

export const WINDOW_SECONDS = 15 * 60;
/** Per account. */
export const MAX_FAILURES = 10;
/** Password attempts per client address (people behind one NAT share it); bad API tokens per address. */
export const MAX_FAILURES_PER_ADDRESS = 50;

const accountKey = (account: string) => `account:${account.toLowerCase().slice(0, 200)}`;
const passwordAddressKey = (address: string) => `address:${address.slice(0, 64)}`;
const tokenAddressKey = (address: string) => `token-address:${address.slice(0, 64)}`;

export type Reservation = { ok: true; ids: readonly number[] } | { ok: false; wait: number };

/** Counts a password attempt for `account` from `address` before the password is checked. */
export async function reservePasswordAttempt(
  store: Store,
  account: string,
  address: string,
): Promise<Reservation> {
  const r = await store.reserveAuthAttempt(
    [
      { key: accountKey(account), max: MAX_FAILURES },
      { key: passwordAddressKey(address), max: MAX_FAILURES_PER_ADDRESS },
    ],
    WINDOW_SECONDS,
  );
  return r.reserved ? { ok: true, ids: r.reserved } : { ok: false, wait: r.wait };
}

/** Counts a bad API token from `address` (its own bucket); `ok: false` once the address is over its limit. */
export async function reserveTokenFailure(store: Store, address: string): Promise<Reservation> {
  const r = await store.reserveAuthAttempt(
    [{ key: tokenAddressKey(address), max: MAX_FAILURES_PER_ADDRESS }],
    WINDOW_SECONDS,
  );
  return r.reserved ? { ok: true, ids: r.reserved } : { ok: false, wait: r.wait };
}

export interface FailedCredential {
  readonly kind: "password" | "api-token";
  readonly address: string;
  /** The username tried; null for an API token. */
  readonly account: string | null;
  /** Why, for the log and the audit: "wrong password", "unknown user", "disabled", "unknown token". */
  readonly reason: string;
  /** Set when the account exists: the failure is audited under it. */
  readonly audit?: boolean;
}

/** Logs (and for an existing account audits) a failure already counted by its reservation. */
export async function failedCredential(store: Store, f: FailedCredential): Promise<void> {
  const who = f.account === null ? "" : ` for ${JSON.stringify(f.account.slice(0, 100))}`;
  console.warn(`untorn: failed ${f.kind} sign-in${who} from ${f.address.slice(0, 64)} (${f.reason})`);
  if (f.audit && f.account !== null)
    await store.audit({
      actor: `${f.account.slice(0, 100)} (not signed in)`,
      action: "auth.sign-in-failed",
      entity: "user",
      entityId: f.account.slice(0, 100),
      details: { address: f.address.slice(0, 64), reason: f.reason },
    });
}

/** Logs a refused attempt (throttled): not counted again, so the window ends when it says. */
export function throttledAttempt(
  kind: FailedCredential["kind"],
  address: string,
  account: string | null,
): void {
  const who = account === null ? "" : ` for ${JSON.stringify(account.slice(0, 100))}`;
  console.warn(`untorn: throttled ${kind} sign-in${who} from ${address.slice(0, 64)}`);
}

/** A good password: its reservation is no failure, and the account's earlier failures are forgotten. */
export async function succeeded(
  store: Store,
  account: string,
  reservation: readonly number[],
): Promise<void> {
  await store.releaseAuthAttempt(reservation);
  await store.clearAuthFailures(accountKey(account));
}
