/**
 * Typed errors of the Prometheus client. Every message names the server (credentials removed), what
 * went wrong in words a DBA can act on, and how many attempts were made.
 */

/** What every client error carries besides its message. */
export interface PromErrorContext {
  /** Base URL of the server, credentials removed. */
  baseUrl: string;
  /** API path that was called, e.g. "/api/v1/query". */
  endpoint: string;
  /** HTTP requests made for this call, retries included. */
  attempts: number;
  /** The PromQL expression (or series selectors) of the call, when there is one. */
  query?: string;
  /** Delay the server asked for in a Retry-After header, ms. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** Base class: `instanceof PromError` catches every failure of the client except a caller's abort. */
export abstract class PromError extends Error {
  readonly baseUrl: string;
  readonly endpoint: string;
  readonly attempts: number;
  readonly query: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** Whether the client may retry the call that produced this error. */
  abstract readonly retryable: boolean;

  constructor(message: string, ctx: PromErrorContext) {
    super(message + attemptsSuffix(ctx.attempts), ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.baseUrl = ctx.baseUrl;
    this.endpoint = ctx.endpoint;
    this.attempts = ctx.attempts;
    this.query = ctx.query;
    this.retryAfterMs = ctx.retryAfterMs;
  }
}

function attemptsSuffix(attempts: number): string {
  return attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
}

function queryNote(query: string | undefined): string {
  if (query === undefined) return "";
  return `; query: ${excerpt(query, 200)}`;
}

/** First `max` characters of `text` with whitespace collapsed. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return " (check the bearer token or basic-auth credentials)";
  if (status === 404) return " (check the base URL, including any path prefix such as /prometheus)";
  if (status === 429) return " (the server is rate-limiting this client)";
  return "";
}

/** Non-2xx answer whose body is not a Prometheus error envelope (proxy page, plain text, empty). */
export class PromHttpError extends PromError {
  override readonly name = "PromHttpError";
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly statusText: string,
    /** At most 300 characters of the body, whitespace collapsed. */
    readonly bodyExcerpt: string,
    ctx: PromErrorContext,
  ) {
    const body = bodyExcerpt ? `: ${bodyExcerpt}` : "";
    super(
      `Prometheus at ${ctx.baseUrl} answered HTTP ${status}${statusText ? ` ${statusText}` : ""} for ${ctx.endpoint}${statusHint(status)}${body}`,
      ctx,
    );
    this.retryable = status >= 500 || status === 429;
  }
}

/**
 * The server answered with the API's error envelope: `{"status":"error","errorType":…,"error":…}`.
 * errorType is Prometheus's: bad_data (PromQL parse error, bad parameter; HTTP 400), execution (422),
 * timeout / canceled / unavailable (503), internal (500), not_found (404).
 */
export class PromApiError extends PromError {
  override readonly name = "PromApiError";
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly errorType: string,
    /** The server's own error text, e.g. "1:6: parse error: unexpected end of input". */
    readonly error: string,
    ctx: PromErrorContext,
  ) {
    const verb = ctx.query === undefined ? "returned an error" : "rejected the query";
    super(
      `Prometheus at ${ctx.baseUrl} ${verb} (${errorType}, HTTP ${status}): ${error}${queryNote(ctx.query)}`,
      ctx,
    );
    // errorType "timeout" means the server's own query timeout fired: running it again costs the same.
    this.retryable = (status >= 500 && errorType !== "timeout") || status === 429;
  }
}

/** No complete answer in time: `scope` tells whether one request or the whole call ran out. */
export class PromTimeoutError extends PromError {
  override readonly name = "PromTimeoutError";
  /** A request that timed out is not repeated: a slow server stays slow and retries add to its load. */
  readonly retryable = false;

  constructor(
    readonly scope: "request" | "overall",
    readonly timeoutMs: number,
    ctx: PromErrorContext,
  ) {
    const what = scope === "request" ? "per-request timeout" : "overall time budget, retries included";
    super(
      `Prometheus at ${ctx.baseUrl} did not answer ${ctx.endpoint} within ${timeoutMs} ms (${what})${queryNote(ctx.query)}`,
      ctx,
    );
  }
}

/** No HTTP answer at all: connection refused or reset, DNS failure, TLS failure. */
export class PromUnreachableError extends PromError {
  override readonly name = "PromUnreachableError";
  readonly retryable = true;

  constructor(
    /** The network error in the runtime's words, e.g. "connect ECONNREFUSED 127.0.0.1:9090". */
    readonly reason: string,
    /** errno-style code when there is one: ECONNREFUSED, ENOTFOUND, ECONNRESET, … */
    readonly code: string | undefined,
    ctx: PromErrorContext,
  ) {
    super(`Prometheus at ${ctx.baseUrl} is unreachable: ${reason}`, ctx);
  }
}

/**
 * A 2xx answer that is not what the Prometheus API returns: HTML (a login page or proxy), non-JSON,
 * truncated JSON, JSON of the wrong shape or an unexpected result type, or a body cut off mid-way.
 */
export class PromResponseError extends PromError {
  override readonly name = "PromResponseError";
  readonly retryable: boolean;

  constructor(
    /** What was wrong, e.g. `data.result[0].value[1]: expected a number as a string`. */
    readonly problem: string,
    /** HTTP status of the answer (0 when the body could not be read). */
    readonly status: number,
    /** At most 300 characters of the body. */
    readonly bodyExcerpt: string,
    ctx: PromErrorContext & { retryable?: boolean },
  ) {
    super(
      `Prometheus at ${ctx.baseUrl} sent an answer to ${ctx.endpoint} that is not a valid Prometheus API response: ${problem}${queryNote(ctx.query)}`,
      ctx,
    );
    this.retryable = ctx.retryable ?? false;
  }
}
