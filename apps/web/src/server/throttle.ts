/**
 * Failed sign-ins and bad API tokens: each is logged (what, for which account, from where; never the
 * secret), counted in the store per account and per client address, and a failed password for an
 * existing account goes to the audit log. After MAX_FAILURES for an account, or MAX_FAILURES_PER_ADDRESS
 * from an address, within WINDOW_SECONDS further attempts are refused (429) until the window passes.
 * The counts live in the database, so every console on one PostgreSQL sees the same ones.
 */
import type { Store } from "@untorn/store/store";

export const WINDOW_SECONDS = 15 * 60;
/** Per account; per client address more, since people behind one NAT or proxy share it. */
export const MAX_FAILURES = 10;
export const MAX_FAILURES_PER_ADDRESS = 50;

const accountKey = (account: string) => `account:${account.slice(0, 200)}`;
const addressKey = (address: string) => `address:${address.slice(0, 64)}`;

/** Seconds until `account` (null: no account, an API token) or `address` may try again, or 0. */
export async function throttledFor(store: Store, account: string | null, address: string): Promise<number> {
  const [byAccount, byAddress] = await Promise.all([
    account === null ? 0 : store.authFailureWait(accountKey(account), MAX_FAILURES, WINDOW_SECONDS),
    store.authFailureWait(addressKey(address), MAX_FAILURES_PER_ADDRESS, WINDOW_SECONDS),
  ]);
  return Math.max(byAccount, byAddress);
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

export async function failedCredential(store: Store, f: FailedCredential): Promise<void> {
  const who = f.account === null ? "" : ` for ${JSON.stringify(f.account.slice(0, 100))}`;
  console.warn(`untorn: failed ${f.kind} sign-in${who} from ${f.address.slice(0, 64)} (${f.reason})`);
  await store.recordAuthFailure(
    f.account === null ? [addressKey(f.address)] : [accountKey(f.account), addressKey(f.address)],
    WINDOW_SECONDS,
  );
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

export async function succeeded(store: Store, account: string): Promise<void> {
  await store.clearAuthFailures(accountKey(account));
}
