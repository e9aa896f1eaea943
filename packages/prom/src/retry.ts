/** Retry timing: exponential backoff with "equal jitter", and the Retry-After header. */

export interface BackoffOptions {
  /** Cap of the first retry's delay, ms. */
  baseDelayMs: number;
  /** Largest delay before any retry, ms. */
  maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): half of min(max, base·2^(retry−1)) fixed
 * plus up to the same again at random. The fixed half keeps a restarting server from being hit again
 * at once; the random half spreads many clients (web app workers) apart.
 * @param random uniform in [0, 1)
 */
export function backoffDelay(retry: number, opts: BackoffOptions, random: () => number): number {
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(cap / 2 + (cap / 2) * random());
}

/**
 * Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or undefined.
 * @param nowMs wall-clock time, for the HTTP-date form
 */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
