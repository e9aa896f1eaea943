/**
 * Failed sign-ins and bad tokens: each is logged (what, from where, never the secret) and counted per
 * account and per client address; after MAX_FAILURES (per account) or MAX_FAILURES_PER_ADDRESS in WINDOW_MS further attempts are refused until
 * the window passes. Per process: behind several consoles each counts on its own (docs/security.md).
 */
const WINDOW_MS = 15 * 60_000;
/** Per account; per client address more, since people behind one NAT or proxy share it. */
const MAX_FAILURES = 10;
const MAX_FAILURES_PER_ADDRESS = 50;

const failures = new Map<string, number[]>();

function recent(key: string, now: number): number[] {
  const list = (failures.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
  if (list.length === 0) failures.delete(key);
  else failures.set(key, list);
  return list;
}

/** Seconds until `account` or `address` may try again, or 0. */
export function throttledFor(account: string, address: string, now = Date.now()): number {
  let wait = 0;
  for (const [key, max] of [
    [`a:${account}`, MAX_FAILURES],
    [`ip:${address}`, MAX_FAILURES_PER_ADDRESS],
  ] as const) {
    const list = recent(key, now);
    if (list.length >= max) wait = Math.max(wait, Math.ceil((list[0]! + WINDOW_MS - now) / 1000));
  }
  return wait;
}

export function failedCredential(kind: "password" | "api-token", address: string, account: string): void {
  const now = Date.now();
  for (const key of [`a:${account}`, `ip:${address}`]) failures.set(key, [...recent(key, now), now]);
  if (failures.size > 100_000) failures.clear();
  console.warn(
    `untorn: failed ${kind} sign-in for ${JSON.stringify(account.slice(0, 100))} from ${address.slice(0, 64)}`,
  );
}

export function succeeded(account: string): void {
  failures.delete(`a:${account}`);
}
