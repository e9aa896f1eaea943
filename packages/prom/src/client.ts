import { setTimeout as sleepFor } from "node:timers/promises";
import { formatDuration, parseDuration } from "./duration.js";
import {
  excerpt,
  PromApiError,
  PromError,
  type PromErrorContext,
  PromHttpError,
  PromResponseError,
  PromTimeoutError,
  PromUnreachableError,
} from "./errors.js";
import {
  type BuildInfo,
  BuildInfoSchema,
  decode,
  decodeQueryData,
  EnvelopeSchema,
  type Labels,
  LabelValuesSchema,
  type MatrixSeries,
  type PromResult,
  type QueryData,
  type ScalarResult,
  SeriesSchema,
  ShapeError,
  type VectorSample,
} from "./result.js";
import { backoffDelay, retryAfterMs } from "./retry.js";
import { Semaphore } from "./semaphore.js";

export interface PromClientOptions {
  /** Server root, with any path prefix: "http://prometheus:9090", "https://host/prometheus". Credentials in the URL become basic auth. */
  baseUrl: string;
  /** Extra headers on every request, e.g. { "X-Scope-OrgID": "tenant" } for Mimir. */
  headers?: Record<string, string>;
  bearerToken?: string;
  basicAuth?: { username: string; password: string };
  /** Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Per HTTP request, ms, body included. Default 30 000. Also sent as the query's server-side `timeout`. */
  timeoutMs?: number;
  /** Per call, ms: waiting for a slot, every attempt and the pauses between them. Default 60 000. */
  totalTimeoutMs?: number;
  /** Retries after the first attempt on 5xx, 429, network errors and bodies cut off mid-way. Default 2. */
  retries?: number;
  /** Backoff before the first retry is 50–100 % of this, doubling each retry. Default 250 ms. */
  baseDelayMs?: number;
  /** Longest pause between attempts. Default 5 000 ms. A longer Retry-After is honoured within totalTimeoutMs. */
  maxDelayMs?: number;
  /** Requests in flight at once from this client; the rest wait in order. Default 4. */
  maxConcurrency?: number;
  /** Pause used between attempts. Default a timer; tests inject one that returns at once. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Monotonic clock, ms. Default performance.now. */
  now?: () => number;
  /** Uniform in [0, 1), for the backoff jitter. Default Math.random. */
  random?: () => number;
}

/** Overrides for one call. `signal` aborts it: the promise then rejects with the signal's reason. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  totalTimeoutMs?: number;
  retries?: number;
}

/** A point in time: a Date or Unix seconds (not milliseconds). */
export type TimeInput = Date | number;

export interface InstantQueryOptions extends CallOptions {
  /** Evaluation time; default the server's now. */
  time?: TimeInput;
}

export interface RangeQueryOptions extends CallOptions {
  start: TimeInput;
  end: TimeInput;
  /** Resolution: seconds, or a PromQL duration such as "30s". */
  step: number | string;
}

export interface SeriesOptions extends CallOptions {
  start?: TimeInput;
  end?: TimeInput;
}

export interface LabelValuesOptions extends SeriesOptions {
  /** Series selectors that limit which series' values are returned. */
  match?: string[];
}

export interface Readiness {
  ready: boolean;
  /** HTTP status of /-/ready: 200 when ready, 503 while starting (WAL replay). */
  status: number;
  /** The server's text, e.g. "Prometheus Server is Ready." */
  message: string;
}

export interface EndpointStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Wall time of those requests, request sent to body read, ms. */
  totalMs: number;
}

export interface RequestStats extends EndpointStats {
  /** Client method calls (one call makes one request plus its retries). */
  calls: number;
  retries: number;
  /** Calls that ended with an error (aborts by the caller included). */
  failures: number;
  /** Time spent waiting for a concurrency slot, ms. */
  queueMs: number;
  /** Most requests that were in flight at once. */
  maxInFlight: number;
  /** Keyed by API path; label values as "/api/v1/label/:name/values". */
  byEndpoint: Record<string, EndpointStats>;
}

interface ApiRequest {
  method: "GET" | "POST";
  /** Path below the base URL. */
  path: string;
  /** Key for statistics and messages. */
  endpoint: string;
  params: URLSearchParams;
  /** PromQL or selectors, for error messages. */
  query?: string;
  /** Statuses handed to the caller instead of becoming errors. Default 2xx. */
  accept?: (status: number) => boolean;
}

interface RawResponse {
  status: number;
  text: string;
}

const DEFAULTS = {
  timeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  retries: 2,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxConcurrency: 4,
};

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  }
  return value;
}

/** Unix seconds with millisecond precision, as the API accepts. */
export function formatTime(name: string, t: TimeInput): string {
  const seconds = t instanceof Date ? t.getTime() / 1000 : t;
  if (!Number.isFinite(seconds)) throw new RangeError(`${name} is not a valid time: ${String(t)}`);
  // Year 5138 in seconds; anything above is almost surely milliseconds passed by mistake.
  if (Math.abs(seconds) > 1e11) {
    throw new RangeError(`${name} ${seconds} looks like milliseconds: pass Unix seconds or a Date`);
  }
  return seconds.toFixed(3);
}

function stepSeconds(step: number | string): number {
  const seconds = typeof step === "string" ? parseDuration(step) / 1000 : step;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new RangeError(
      `step must be a positive number of seconds or a PromQL duration, got ${String(step)}`,
    );
  }
  return seconds;
}

/** The network failure in the runtime's words, digging through fetch's "fetch failed" wrapper. */
function networkReason(err: unknown): { reason: string; code: string | undefined } {
  let e: unknown = err;
  for (let depth = 0; depth < 4; depth++) {
    const cause = (e as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    e = cause;
  }
  const obj = e as { message?: unknown; code?: unknown; errors?: unknown } | null;
  const code = typeof obj?.code === "string" ? obj.code : undefined;
  let reason = typeof obj?.message === "string" ? obj.message : "";
  // Happy-eyeballs connects (several addresses) fail with an AggregateError and an empty message.
  if (!reason && Array.isArray(obj?.errors)) {
    reason = obj.errors.map((x: { message?: unknown }) => String(x?.message ?? x)).join("; ");
  }
  // fetch refuses the Fetch standard's "bad ports" (1, 6000, 10080, …) without trying them.
  if (reason === "bad port") reason = "the port is on fetch's blocked list (bad port); use another port";
  return { reason: reason || code || String(err), code };
}

function looksLikeHtml(text: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body|<!--)/i.test(text) || /<\/(html|body|title)>/i.test(text);
}

/** A readable excerpt of a body: HTML reduced to its text. */
function bodyExcerpt(body: string): string {
  // The excerpt needs only the start; error pages can be large.
  const text = body.slice(0, 8192);
  if (!looksLikeHtml(text)) return excerpt(text);
  return excerpt(
    text
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
      .replace(/<[^>]*>/g, " ")
      .replace(/&nbsp;/g, " "),
  );
}

/** What is wrong with a 2xx body that should have been API JSON. */
function notJsonProblem(text: string, err: unknown): string {
  if (text.trim() === "") return "the body is empty";
  if (looksLikeHtml(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    return `got an HTML page${title ? ` ("${excerpt(title, 80)}")` : ""} instead of JSON: check the base URL and any proxy or login page in front of Prometheus`;
  }
  const detail = err instanceof Error ? err.message : String(err);
  if (/end of (JSON )?input|Unterminated/i.test(detail))
    return `the JSON ends early, truncated answer? (${detail})`;
  return `the body is not JSON (${detail}): ${excerpt(text, 120)}`;
}

/**
 * Client of the Prometheus HTTP API, also for Thanos, Mimir and VictoriaMetrics. Every method is one
 * call: up to `retries + 1` HTTP requests within `totalTimeoutMs`, at most `maxConcurrency` in flight
 * per client. Failures are PromError subclasses; an abort through `signal` rejects with its reason.
 */
/** Which kind of server answers the Prometheus API, and how far behind the wall clock its "now" is. */
export interface BackendInfo {
  /** "prometheus" covers Prometheus and the servers that answer as it does (Thanos, Mimir, Cortex). */
  readonly kind: "prometheus" | "victoriametrics";
  /** The server's reported version, when it gives one. */
  readonly version: string | null;
  /**
   * Seconds to read "now" in the past so the newest samples are the same on every backend: 0 on
   * Prometheus; VictoriaMetrics' -search.latencyOffset (default 30 s), before which it hides samples.
   */
  readonly queryDelaySeconds: number;
  /** Why the delay is what it is, in words for the page and the CLI; null when it is 0. */
  readonly note: string | null;
}

/** VictoriaMetrics' default -search.latencyOffset (docs/scaling.md §2). */
export const VM_DEFAULT_LATENCY_OFFSET_SECONDS = 30;

/** The -search.latencyOffset VictoriaMetrics' /flags page lists when it was set; null when not listed. */
export function latencyOffsetFromFlags(text: string): number | null {
  const m = /^-search\.latencyOffset="?([^"\s]+)"?\s*$/m.exec(text);
  if (!m) return null;
  try {
    return parseDuration(m[1]!) / 1000;
  } catch {
    return null;
  }
}

export class PromClient {
  /** Base URL without credentials, as used in messages. */
  readonly baseUrl: string;
  private readonly root: string;
  private readonly headers: Record<string, string>;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly retries: number;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number };
  private readonly semaphore: Semaphore;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private inFlight = 0;
  private counters: RequestStats = emptyStats();
  private backendInfo: BackendInfo | undefined;

  constructor(opts: PromClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new TypeError(
        `Prometheus base URL ${JSON.stringify(opts.baseUrl)} is not a URL (expected http://host:9090)`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`Prometheus base URL must be http or https, got ${url.protocol}`);
    }
    if (url.search || url.hash) {
      throw new TypeError(
        "Prometheus base URL must not have a query string or fragment; use headers for tenant IDs",
      );
    }
    let basic = opts.basicAuth;
    if (url.username || url.password) {
      basic ??= { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
      url.username = "";
      url.password = "";
    }
    this.root = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    this.baseUrl = this.root;

    const headers: Record<string, string> = { accept: "application/json", "user-agent": "untorn-prom" };
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
    if (opts.bearerToken !== undefined && basic !== undefined) {
      throw new TypeError("give either a bearer token or basic auth for Prometheus, not both");
    }
    if ((opts.bearerToken !== undefined || basic !== undefined) && headers["authorization"] !== undefined) {
      throw new TypeError("an Authorization header is set and so is bearerToken/basicAuth: keep one");
    }
    if (opts.bearerToken !== undefined) headers["authorization"] = `Bearer ${opts.bearerToken}`;
    if (basic !== undefined) {
      headers["authorization"] =
        `Basic ${Buffer.from(`${basic.username}:${basic.password}`, "utf8").toString("base64")}`;
    }
    this.headers = headers;

    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.timeoutMs = positiveInt("timeoutMs", opts.timeoutMs ?? DEFAULTS.timeoutMs);
    this.totalTimeoutMs = positiveInt("totalTimeoutMs", opts.totalTimeoutMs ?? DEFAULTS.totalTimeoutMs);
    this.retries = positiveInt("retries", opts.retries ?? DEFAULTS.retries, 0);
    this.backoff = {
      baseDelayMs: positiveInt("baseDelayMs", opts.baseDelayMs ?? DEFAULTS.baseDelayMs, 0),
      maxDelayMs: positiveInt("maxDelayMs", opts.maxDelayMs ?? DEFAULTS.maxDelayMs, 0),
    };
    this.semaphore = new Semaphore(
      positiveInt("maxConcurrency", opts.maxConcurrency ?? DEFAULTS.maxConcurrency),
    );
    this.sleep = opts.sleep ?? ((ms, signal) => sleepFor(ms, undefined, { signal }));
    this.now = opts.now ?? (() => performance.now());
    this.random = opts.random ?? Math.random;
  }

  /** Instant query (/api/v1/query); the result type is whatever the expression yields. */
  async query(expr: string, opts: InstantQueryOptions = {}): Promise<PromResult<QueryData>> {
    return this.json(this.queryRequest(expr, opts), opts, (data) => decodeQueryData(data));
  }

  /** Instant query that must yield an instant vector; anything else is a PromResponseError. */
  async queryVector(expr: string, opts: InstantQueryOptions = {}): Promise<PromResult<VectorSample[]>> {
    return this.json(this.queryRequest(expr, opts), opts, (data) => decodeQueryData(data, "vector").result);
  }

  /** Instant query that must yield a scalar (e.g. `scalar(...)`, `time()`). */
  async queryScalar(expr: string, opts: InstantQueryOptions = {}): Promise<PromResult<ScalarResult>> {
    return this.json(this.queryRequest(expr, opts), opts, (data) => decodeQueryData(data, "scalar").result);
  }

  /** Range query (/api/v1/query_range); always a matrix. */
  async queryRange(expr: string, opts: RangeQueryOptions): Promise<PromResult<MatrixSeries[]>> {
    const start = formatTime("start", opts.start);
    const end = formatTime("end", opts.end);
    if (Number(end) < Number(start)) throw new RangeError(`range query end ${end} is before start ${start}`);
    const params = new URLSearchParams({ query: expr, start, end, step: String(stepSeconds(opts.step)) });
    params.set("timeout", this.serverTimeout(opts));
    const req: ApiRequest = {
      method: "POST",
      path: "/api/v1/query_range",
      endpoint: "/api/v1/query_range",
      params,
      query: expr,
    };
    return this.json(req, opts, (data) => decodeQueryData(data, "matrix").result);
  }

  /** Label sets of the series matching any of the selectors (/api/v1/series). */
  async series(match: string | readonly string[], opts: SeriesOptions = {}): Promise<PromResult<Labels[]>> {
    const selectors = typeof match === "string" ? [match] : [...match];
    if (selectors.length === 0) throw new RangeError("series() needs at least one selector");
    const params = new URLSearchParams();
    for (const m of selectors) params.append("match[]", m);
    this.timeRange(params, opts);
    const req: ApiRequest = { method: "POST", path: "/api/v1/series", endpoint: "/api/v1/series", params };
    req.query = selectors.join(", ");
    return this.json(req, opts, (data) => decode(SeriesSchema, data, "data"));
  }

  /** Values of one label (/api/v1/label/<name>/values), sorted by the server. */
  async labelValues(name: string, opts: LabelValuesOptions = {}): Promise<PromResult<string[]>> {
    if (name === "") throw new RangeError("labelValues() needs a label name");
    const params = new URLSearchParams();
    for (const m of opts.match ?? []) params.append("match[]", m);
    this.timeRange(params, opts);
    // GET only: the endpoint has no POST form.
    const req: ApiRequest = {
      method: "GET",
      path: `/api/v1/label/${encodeURIComponent(name)}/values`,
      endpoint: "/api/v1/label/:name/values",
      params,
    };
    if (opts.match?.length) req.query = opts.match.join(", ");
    return this.json(req, opts, (data) => decode(LabelValuesSchema, data, "data"));
  }

  /** Version and build of the server (/api/v1/status/buildinfo). */
  async buildInfo(opts: CallOptions = {}): Promise<BuildInfo> {
    const req: ApiRequest = {
      method: "GET",
      path: "/api/v1/status/buildinfo",
      endpoint: "/api/v1/status/buildinfo",
      params: new URLSearchParams(),
    };
    return (await this.json(req, opts, (data) => decode(BuildInfoSchema, data, "data"))).data;
  }

  /**
   * Which server this is (cached after the first answer). VictoriaMetrics answers the Prometheus API but
   * also its own /api/v1/export, which Prometheus, Thanos and Mimir do not have; its /flags page then
   * says whether -search.latencyOffset was changed from the default.
   */
  async backend(opts: CallOptions = {}): Promise<BackendInfo> {
    if (this.backendInfo) return this.backendInfo;
    const build = await this.json(
      {
        method: "GET",
        path: "/api/v1/status/buildinfo",
        endpoint: "/api/v1/status/buildinfo",
        params: new URLSearchParams(),
      },
      opts,
      (data) => data,
    );
    const raw = build.data as { version?: unknown } | null;
    const version = typeof raw?.version === "string" && raw.version !== "" ? raw.version : null;
    const exported = await this.call(
      {
        method: "GET",
        path: "/api/v1/export",
        endpoint: "/api/v1/export",
        params: new URLSearchParams({ "match[]": "untorn_backend_probe" }),
        accept: () => true,
      },
      { ...opts, retries: 0 },
      (r) => r.status,
    );
    if (exported < 200 || exported >= 300) {
      this.backendInfo = { kind: "prometheus", version, queryDelaySeconds: 0, note: null };
      return this.backendInfo;
    }
    const flags = await this.call(
      {
        method: "GET",
        path: "/flags",
        endpoint: "/flags",
        params: new URLSearchParams(),
        accept: () => true,
      },
      { ...opts, retries: 0 },
      (r) => (r.status >= 200 && r.status < 300 ? r.text : ""),
    );
    const offset = latencyOffsetFromFlags(flags) ?? VM_DEFAULT_LATENCY_OFFSET_SECONDS;
    this.backendInfo = {
      kind: "victoriametrics",
      version,
      queryDelaySeconds: offset,
      note:
        offset > 0
          ? `VictoriaMetrics hides the newest ${offset} s (-search.latencyOffset): "now" is read ${offset} s ago`
          : null,
    };
    return this.backendInfo;
  }

  /**
   * "Now" for queries that give no time, in Unix seconds: the wall clock less the backend's query delay
   * once backend() has answered (so Prometheus and VictoriaMetrics read the same newest samples).
   */
  defaultTime(): number {
    return Date.now() / 1000 - (this.backendInfo?.queryDelaySeconds ?? 0);
  }

  /**
   * Readiness (/-/ready on Prometheus, Thanos and VictoriaMetrics; Mimir has no such path under its
   * Prometheus prefix, use buildInfo() there). 503 is an answer, not an error; no retries by default.
   */
  async ready(opts: CallOptions = {}): Promise<Readiness> {
    const req: ApiRequest = {
      method: "GET",
      path: "/-/ready",
      endpoint: "/-/ready",
      params: new URLSearchParams(),
      accept: (s) => (s >= 200 && s < 300) || s === 503,
    };
    const res = await this.call(req, { ...opts, retries: opts.retries ?? 0 }, (raw) => raw);
    return { ready: res.status < 300, status: res.status, message: excerpt(res.text) };
  }

  /** Counters since creation or the last resetStats(): a copy. */
  get stats(): RequestStats {
    const byEndpoint: Record<string, EndpointStats> = {};
    for (const [k, v] of Object.entries(this.counters.byEndpoint)) byEndpoint[k] = { ...v };
    return { ...this.counters, byEndpoint };
  }

  resetStats(): void {
    this.counters = emptyStats();
  }

  private queryRequest(expr: string, opts: InstantQueryOptions): ApiRequest {
    const params = new URLSearchParams({ query: expr });
    if (opts.time !== undefined) params.set("time", formatTime("time", opts.time));
    // Lets the server (and Thanos/Mimir frontends) stop evaluating when this client would stop waiting.
    params.set("timeout", this.serverTimeout(opts));
    return { method: "POST", path: "/api/v1/query", endpoint: "/api/v1/query", params, query: expr };
  }

  /** The query's server-side `timeout`: the client stops waiting after this anyway. */
  private serverTimeout(opts: CallOptions): string {
    const timeout = positiveInt("timeoutMs", opts.timeoutMs ?? this.timeoutMs);
    const total = positiveInt("totalTimeoutMs", opts.totalTimeoutMs ?? this.totalTimeoutMs);
    return formatDuration(Math.min(timeout, total));
  }

  private timeRange(params: URLSearchParams, opts: SeriesOptions): void {
    if (opts.start !== undefined) params.set("start", formatTime("start", opts.start));
    if (opts.end !== undefined) params.set("end", formatTime("end", opts.end));
  }

  /** A call to a JSON API endpoint: envelope checked, `data` decoded by `decodeData`. */
  private json<T>(
    req: ApiRequest,
    opts: CallOptions,
    decodeData: (data: unknown) => T,
  ): Promise<PromResult<T>> {
    return this.call(req, opts, (raw, ctx) => {
      const fail = (problem: string) =>
        new PromResponseError(problem, raw.status, bodyExcerpt(raw.text), ctx);
      let body: unknown;
      try {
        body = JSON.parse(raw.text);
      } catch (err) {
        throw fail(notJsonProblem(raw.text, err));
      }
      if (typeof body !== "object" || body === null || !("status" in body)) {
        throw fail(`no "status" field, this is not a Prometheus API answer: ${excerpt(raw.text, 120)}`);
      }
      try {
        const env = decode(EnvelopeSchema, body, "");
        if (env.status === "error") throw new PromApiError(raw.status, env.errorType, env.error, ctx);
        return { data: decodeData(env.data), warnings: env.warnings, infos: env.infos };
      } catch (err) {
        if (err instanceof ShapeError) throw fail(err.message);
        throw err;
      }
    });
  }

  /** One call: slots, attempts, retries, deadlines and statistics. */
  private async call<T>(
    req: ApiRequest,
    opts: CallOptions,
    handle: (raw: RawResponse, ctx: PromErrorContext) => T,
  ): Promise<T> {
    const timeoutMs = positiveInt("timeoutMs", opts.timeoutMs ?? this.timeoutMs);
    const totalTimeoutMs = positiveInt("totalTimeoutMs", opts.totalTimeoutMs ?? this.totalTimeoutMs);
    const retries = positiveInt("retries", opts.retries ?? this.retries, 0);
    const caller = opts.signal;
    caller?.throwIfAborted();

    this.counters.calls++;
    const deadline = this.now() + totalTimeoutMs;
    const overall = new AbortController();
    const overallTimer = setTimeout(() => overall.abort(), totalTimeoutMs);
    const callSignal = caller ? AbortSignal.any([caller, overall.signal]) : overall.signal;
    const context = (attempts: number): PromErrorContext => {
      const ctx: PromErrorContext = { baseUrl: this.baseUrl, endpoint: req.endpoint, attempts };
      if (req.query !== undefined) ctx.query = req.query;
      return ctx;
    };
    const interrupted = (attempts: number): unknown => {
      if (caller?.aborted) return caller.reason;
      return new PromTimeoutError("overall", totalTimeoutMs, context(attempts));
    };

    try {
      for (let attempt = 1; ; attempt++) {
        let error: PromError;
        try {
          const raw = await this.attempt(req, attempt, timeoutMs, callSignal, context, interrupted);
          return handle(raw, context(attempt));
        } catch (err) {
          if (!(err instanceof PromError)) throw err;
          error = err;
        }
        if (!error.retryable || attempt > retries) throw error;
        const delay = Math.max(
          backoffDelay(attempt, this.backoff, this.random),
          Math.min(error.retryAfterMs ?? 0, totalTimeoutMs),
        );
        // Not enough budget left to wait and try again: the real error says more than a timeout.
        if (this.now() + delay >= deadline) throw error;
        this.counters.retries++;
        try {
          await this.sleep(delay, callSignal);
        } catch (err) {
          if (callSignal.aborted) throw interrupted(attempt);
          throw err;
        }
        if (callSignal.aborted) throw interrupted(attempt);
      }
    } catch (err) {
      this.counters.failures++;
      throw err;
    } finally {
      clearTimeout(overallTimer);
    }
  }

  /** One HTTP request within a concurrency slot. */
  private async attempt(
    req: ApiRequest,
    attempt: number,
    timeoutMs: number,
    callSignal: AbortSignal,
    context: (attempts: number) => PromErrorContext,
    interrupted: (attempts: number) => unknown,
  ): Promise<RawResponse> {
    const queuedAt = this.now();
    let release: () => void;
    try {
      release = await this.semaphore.acquire(callSignal);
    } catch {
      throw interrupted(attempt - 1);
    }
    this.counters.queueMs += this.now() - queuedAt;

    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    const signal = AbortSignal.any([callSignal, timer.signal]);
    const ctx = context(attempt);
    const stats = this.counters.byEndpoint[req.endpoint] ?? { requests: 0, totalMs: 0 };
    this.counters.byEndpoint[req.endpoint] = stats;
    this.counters.requests++;
    stats.requests++;
    this.inFlight++;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, this.inFlight);
    const startedAt = this.now();

    let url = `${this.root}${req.path}`;
    const init: RequestInit = { method: req.method, headers: this.headers, signal };
    if (req.method === "GET") {
      const qs = req.params.toString();
      if (qs) url += `?${qs}`;
    } else {
      init.body = req.params;
      init.headers = { ...this.headers, "content-type": "application/x-www-form-urlencoded" };
    }

    let res: Response | undefined;
    let text: string;
    try {
      res = await this.fetchFn(url, init);
      text = await res.text();
    } catch (err) {
      if (callSignal.aborted) throw interrupted(attempt);
      if (timer.signal.aborted) throw new PromTimeoutError("request", timeoutMs, ctx);
      if (res === undefined) {
        const { reason, code } = networkReason(err);
        const said =
          code === "UND_ERR_SOCKET" ? `the connection closed before an answer arrived (${reason})` : reason;
        throw new PromUnreachableError(said, code, { ...ctx, cause: err });
      }
      throw new PromResponseError(
        `the answer was cut off, the connection closed while it was being read (${networkReason(err).reason})`,
        res.status,
        "",
        { ...ctx, cause: err, retryable: true },
      );
    } finally {
      clearTimeout(timeout);
      this.inFlight--;
      const ms = this.now() - startedAt;
      this.counters.totalMs += ms;
      stats.totalMs += ms;
      release();
    }

    const accept = req.accept ?? ((s: number) => s >= 200 && s < 300);
    if (accept(res.status)) return { status: res.status, text };

    const after = retryAfterMs(res.headers.get("retry-after"), Date.now());
    const errCtx: PromErrorContext = after === undefined ? ctx : { ...ctx, retryAfterMs: after };
    const envelope = apiErrorEnvelope(text);
    if (envelope) throw new PromApiError(res.status, envelope.errorType, envelope.error, errCtx);
    throw new PromHttpError(res.status, res.statusText, bodyExcerpt(text), errCtx);
  }
}

function apiErrorEnvelope(text: string): { errorType: string; error: string } | undefined {
  try {
    const body = JSON.parse(text) as { status?: unknown; errorType?: unknown; error?: unknown };
    if (body?.status === "error" && typeof body.errorType === "string" && typeof body.error === "string") {
      return { errorType: body.errorType, error: body.error };
    }
  } catch {
    // not JSON: a proxy's page or plain text
  }
  return undefined;
}

function emptyStats(): RequestStats {
  return {
    calls: 0,
    requests: 0,
    retries: 0,
    failures: 0,
    totalMs: 0,
    queueMs: 0,
    maxInFlight: 0,
    byEndpoint: {},
  };
}
