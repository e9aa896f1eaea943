/**
 * Fetches what @untorn/rollout's `nextActions` asks for, through a PromQueryApi (a live Prometheus or
 * a replay) with every query from packages/catalog: fresh InstanceFacts for the pre-wave gate, the
 * read-back of each changed instance, the judged metrics over a wave's bake windows. Queries are per
 * signal for all instances at once (an `instance=~` list), so their number does not grow with the
 * fleet. A failed query throws (the reconciler then retries later and passes no gate); a series that
 * is simply absent is null, which the core treats as "no data", never as a pass.
 */
import type { InstanceFacts } from "@untorn/advisor/facts";
import { oneOf, type Selector } from "@untorn/catalog/promql";
import { rateWindowSeconds } from "@untorn/catalog/rate-window";
import { DEFAULT_WINDOW, type SignalId, signal, signals } from "@untorn/catalog/signals";
import { chooseBlockSeconds } from "@untorn/compare/blocks";
import { ratioOfTotals } from "@untorn/compare/stats/ratio-of-totals";
import type { MatrixSeries, PromQueryApi, VectorSample } from "@untorn/fleet/api";
import { buildFleetFacts, type FleetFactsOptions } from "@untorn/fleet/facts";
import { applyMetadata, type MetadataByInstance } from "@untorn/fleet/pipeline";
import type { BakeSeries, Health, ObservationsInput, ReadBack } from "@untorn/rollout/observations";
import type { ActiveRollout } from "@untorn/rollout/plan";
import type { BakeRequest, NextActions } from "@untorn/rollout/state";
import { prometheusReplication, type ReplicationSource } from "./replication.js";

export type { ReplicationSource };

export interface ObserveOptions {
  /** Evaluation time, Unix seconds. */
  now: number;
  /** Declared metadata (cluster, role, storage facts) overlaid on the measured facts. */
  metadata?: MetadataByInstance;
  replication?: ReplicationSource;
  /** Other rollouts' touched instances, from the store; null = not looked up. */
  activeRollouts?: () => Promise<ActiveRollout[]>;
  /** Window of the workload statistics in the facts; default 1h. */
  factsWindow?: string;
  /**
   * Other facts options (step, rate window, statistics, source, no recording rules): a replay answers
   * only the query texts it recorded, so the reconciler reads it with the recording's own options
   * (`replayReconcileOptions`). The selector stays the instances asked for.
   */
  factsOptions?: Omit<FleetFactsOptions, "at" | "selector">;
  /** Window of rate() in the read-back and bake series; default 5m for read-backs, and for the bake as `BakeFetchOptions.window`. */
  rateWindow?: string;
  /** Step of the bake series in seconds; default about 240 points per window, at least 15 s. */
  bakeStepSeconds?: number;
}

export interface ObserveResult {
  observations: ObservationsInput;
  /** PromQL requests made. */
  queries: number;
  warnings: string[];
}

/** Instant values of one signal per instance (first series wins; info signals keep their labels). */
async function instantBy(
  api: PromQueryApi,
  id: SignalId,
  instances: readonly string[],
  at: number,
  window: string,
  count: { n: number },
  warnings: string[],
): Promise<Map<string, VectorSample>> {
  const expr = signal(id).expr({ selector: { instance: oneOf(instances) }, window });
  count.n++;
  const a = await api.queryVector(expr, { time: at });
  warnings.push(...a.warnings);
  const out = new Map<string, VectorSample>();
  for (const s of a.data) {
    const i = s.labels["instance"];
    if (i !== undefined && !out.has(i)) out.set(i, s);
  }
  return out;
}

const finite = (v: number | undefined): number | null => (v !== undefined && Number.isFinite(v) ? v : null);

/** Read-backs: the signals the core's step gate compares with the target. */
export async function fetchReadBacks(
  api: PromQueryApi,
  instances: readonly string[],
  at: number,
  window: string,
  count: { n: number },
  warnings: string[],
): Promise<ReadBack[]> {
  if (instances.length === 0) return [];
  const q = (id: SignalId) => instantBy(api, id, instances, at, window, count, warnings);
  const [up, mode, config, pages, pagesRate, uptime] = await Promise.all([
    q("mysql_up"),
    q("doublewrite_mode"),
    q("innodb_config_info"),
    q("doublewrite_pages_setting"),
    q("doublewrite_pages_per_second"),
    q("uptime_seconds"),
  ]);
  return instances.map((instance) => {
    const cfg = config.get(instance);
    const upValue = finite(up.get(instance)?.value);
    return {
      instance,
      at,
      up: upValue === null ? null : upValue === 1,
      doublewriteMode: mode.get(instance)?.labels["mode"] ?? null,
      configInfo: cfg
        ? (Object.fromEntries(
            Object.entries(cfg.labels).filter(([k]) => k !== "instance" && k !== "job" && k !== "__name__"),
          ) as Record<string, string>)
        : null,
      doublewritePages: finite(pages.get(instance)?.value),
      doublewritePagesPerSecond: finite(pagesRate.get(instance)?.value),
      uptimeSeconds: finite(uptime.get(instance)?.value),
    };
  });
}

/** Step of a range query: about 240 points per window, at least 15 s (a common scrape interval). */
export function stepFor(start: number, end: number): number {
  return Math.max(15, Math.ceil((end - start) / 240));
}

function windowOf(
  series: MatrixSeries | undefined,
  start: number,
  end: number,
): { t: number[]; v: (number | null)[] } {
  const t: number[] = [];
  const v: (number | null)[] = [];
  for (const [ts, value] of series?.points ?? []) {
    if (ts < start || ts > end) continue;
    t.push(ts);
    v.push(Number.isFinite(value) ? value : null);
  }
  return { t, v };
}

/**
 * Per-transaction signals as numerator ÷ denominator signals (the catalog builds each as the ratio of
 * the two). Their bake series are summed per comparison block (`ratioOfTotals`): the block's bytes
 * over its transactions, not the mean of per-sample ratios, which a bursty denominator (a replica
 * applying in bursts) biases upwards. On a replica the denominator, Com_commit + Com_rollback, counts
 * the transactions its applier commits: in the live rollout test the sibling replica's rate is the
 * primary's to 0.2%, while its Handler_commit runs 10% above the primary's and its handler row writes
 * 50% above (the applier's own mysql.gtid_slave_pos writes) (docs/rollout.md, "Judging a replica").
 */
export const RATIO_PARTS: Partial<Record<SignalId, { numerator: SignalId; denominator: SignalId }>> = {
  write_bytes_per_transaction: {
    numerator: "innodb_write_bytes_per_second",
    denominator: "transactions_per_second",
  },
  write_ops_per_transaction: {
    numerator: "innodb_write_ops_per_second",
    denominator: "transactions_per_second",
  },
  fsyncs_per_transaction: { numerator: "fsyncs_per_second", denominator: "transactions_per_second" },
};

export interface BakeFetchOptions {
  /**
   * rate() window of the series. Default: the sequential judgement's own, `rateWindowSeconds` of its
   * step (60 s at the 15 s step): it reads the noise sample by sample, and a window of many steps makes
   * neighbouring samples near copies of each other (a 5m window at a 15 s step read lag-1
   * autocorrelation 0.99 on the compose demo's steady replicas: 1.1 effective samples in 17 minutes, so
   * the throughput guardrail was refused as no data). The fixed judgement: DEFAULT_WINDOW (5m).
   */
  window?: string;
  /** Range query step in seconds; default `stepFor` (about 240 points per window, at least 15 s). */
  stepSeconds?: number;
}

/** The judged metrics of one wave over its before and after windows, treated and controls alike. */
export async function fetchBake(
  api: PromQueryApi,
  req: BakeRequest,
  opts: BakeFetchOptions,
  count: { n: number },
  warnings: string[],
): Promise<BakeSeries> {
  const ids = req.instances.map((i) => i.id);
  const { after } = req.windows;
  let before = req.windows.before;
  // Sequential: both windows on one grid at the scrape step (the baseline's autocorrelation is
  // measured at that step and stands for the bake's), within Prometheus' 11,000 points a query.
  const sequentialStep = opts.stepSeconds ?? Math.max(15, Math.ceil((before.end - before.start) / 11_000));
  const step = (w: { start: number; end: number }) =>
    req.sequential ? sequentialStep : (opts.stepSeconds ?? stepFor(w.start, w.end));
  const notes: string[] = [];
  if (req.sequential) {
    const treated = req.instances.filter((i) => i.role === "treated").map((i) => i.id);
    const since = req.sequential.changeStartedAt ?? null;
    const cut = await baselineCut(
      api,
      ids,
      before,
      sequentialStep,
      req.sequential.warmupSeconds,
      since === null ? undefined : { instances: treated, since },
      count,
      warnings,
    );
    notes.push(...cut.notes);
    before = { start: cut.start, end: cut.end };
  }
  const window = opts.window ?? (req.sequential ? `${rateWindowSeconds(sequentialStep)}s` : DEFAULT_WINDOW);
  type ByInstance = Map<string, MatrixSeries>;
  const bySignal = new Map<string, { before: ByInstance; after: ByInstance }>();
  const wanted = new Set<SignalId>();
  for (const m of req.metrics) {
    const parts = RATIO_PARTS[m.metric as SignalId];
    if (parts) {
      wanted.add(parts.numerator);
      wanted.add(parts.denominator);
    } else wanted.add(m.metric as SignalId);
  }
  // Plain signals of the catch-up judgement (replication lag, apply rate): same grid, same windows.
  // `signals` is absent in a request from an older core.
  const plain = (req.signals ?? []).filter((id): id is SignalId => id in signals);
  for (const id of plain) wanted.add(id);
  await Promise.all(
    [...wanted].map(async (id) => {
      const expr = signal(id).expr({ selector: { instance: oneOf(ids) }, window });
      const fetch = async (w: { start: number; end: number }) => {
        count.n++;
        const a = await api.queryRange(expr, { start: w.start, end: w.end, step: step(w) });
        warnings.push(...a.warnings);
        const out = new Map<string, MatrixSeries>();
        for (const s of a.data) {
          const i = s.labels["instance"];
          if (i !== undefined && !out.has(i)) out.set(i, s);
        }
        return out;
      };
      const [b, a] = await Promise.all([fetch(before), fetch(after)]);
      bySignal.set(id, { before: b, after: a });
    }),
  );
  if (req.sequential) {
    const earliest = earliestSample(bySignal, req.windows.before, before, sequentialStep);
    notes.push(...earliest.notes);
    before = { start: earliest.start, end: before.end };
  }
  // The block length compare will use, so the sums line up with its blocks; sequential: per sample.
  const blockSeconds = req.sequential
    ? sequentialStep
    : chooseBlockSeconds(
        req.blockSeconds,
        Math.max(step(before), step(after)),
        Math.min(before.end - before.start, after.end - after.start),
      );
  const windows = { before, after };
  const seriesOf = (metric: string, instance: string, which: "before" | "after") => {
    const w = windows[which];
    const parts = RATIO_PARTS[metric as SignalId];
    if (!parts) return windowOf(bySignal.get(metric)![which].get(instance), w.start, w.end);
    const n = windowOf(bySignal.get(parts.numerator)![which].get(instance), w.start, w.end);
    const d = windowOf(bySignal.get(parts.denominator)![which].get(instance), w.start, w.end);
    return ratioOfTotals(n.t, n.v, d.t, d.v, blockSeconds);
  };
  return {
    wave: req.wave,
    windows: { before: { ...before }, after: { ...after } },
    instances: req.instances.map((i) => ({
      id: i.id,
      series: Object.fromEntries([
        ...plain.map((id) => {
          const w = (which: "before" | "after") =>
            windowOf(bySignal.get(id)![which].get(i.id), windows[which].start, windows[which].end);
          return [id, { before: w("before"), after: w("after") }] as const;
        }),
        // A judged metric that is also a plain signal keeps its judged form (a ratio is summed per block).
        ...req.metrics.map(
          (m) =>
            [
              m.metric,
              { before: seriesOf(m.metric, i.id, "before"), after: seriesOf(m.metric, i.id, "after") },
            ] as const,
        ),
      ]),
      ...(req.restarts.length ? { restarts: [...req.restarts] } : {}),
    })),
    ...(notes.length ? { notes } : {}),
  };
}

const minutes = (s: number) => `${Math.round(s / 60)} min`;
const isoTime = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");

/**
 * Where the baseline from history may start: after the last restart of any of the wave's instances
 * in it (uptime falls, or starts inside the window) plus the warm-up, and after the last change of
 * their InnoDB settings (innodb_config_info: a new label set is a new series), each said in a note.
 * A level across a restart is not the level of the same server: pages flushed per transaction vary
 * from one run to the next (docs/reference/iops-metering.md §11).
 */
async function baselineCut(
  api: PromQueryApi,
  ids: readonly string[],
  before: { start: number; end: number },
  step: number,
  warmupSeconds: number,
  change: OwnRestarts | undefined,
  count: { n: number },
  warnings: string[],
): Promise<BaselineCut> {
  const selector = { selector: { instance: oneOf(ids) }, window: DEFAULT_WINDOW };
  const range = { start: before.start, end: before.end, step };
  count.n += 2;
  const [uptime, config] = await Promise.all([
    api.queryRange(signal("uptime_seconds").expr(selector), range),
    api.queryRange(signal("innodb_config_info").expr(selector), range),
  ]);
  warnings.push(...uptime.warnings, ...config.warnings);
  return cutBaseline(uptime.data, config.data, before, warmupSeconds, change);
}

/** The wave's changed instances and when its steps began: a restart of theirs since is the change's own. */
export interface OwnRestarts {
  readonly instances: readonly string[];
  readonly since: number;
}

export interface BaselineCut {
  readonly start: number;
  readonly end: number;
  readonly notes: string[];
}

/**
 * Where the baseline ends when a changed instance restarted for the change before its step was marked
 * done (the operator restarts, then marks the step done): at that restart, since what follows it is
 * the change, not the baseline. The end as given otherwise.
 */
function ownRestartEnd(
  uptime: readonly MatrixSeries[],
  before: { start: number; end: number },
  change: OwnRestarts | undefined,
): { end: number; note: string | null } {
  if (!change) return { end: before.end, note: null };
  const mine = new Set(change.instances);
  let first: { at: number; instance: string } | null = null;
  for (const s of uptime) {
    const instance = s.labels["instance"] ?? "?";
    if (!mine.has(instance)) continue;
    const points = s.points.filter(([, v]) => Number.isFinite(v));
    for (let i = 1; i < points.length; i++) {
      const at = points[i]![0] - points[i]![1];
      if (
        points[i]![1] < points[i - 1]![1] &&
        at >= change.since &&
        at < before.end &&
        (!first || at < first.at)
      )
        first = { at, instance };
    }
  }
  if (!first) return { end: before.end, note: null };
  return {
    end: Math.max(before.start, first.at),
    note: `baseline ends at ${first.instance}'s restart for the change (${isoTime(first.at)}), ${Math.round(before.end - first.at)} s before its step was marked done`,
  };
}

/**
 * baselineCut's decision from the range series it read (uptime_seconds and innodb_config_info of the
 * wave's instances over the asked baseline): the new start and the notes saying why.
 */
export function cutBaseline(
  uptime: readonly MatrixSeries[],
  config: readonly MatrixSeries[],
  asked: { start: number; end: number },
  warmupSeconds: number,
  ownRestarts?: OwnRestarts,
): BaselineCut {
  const own = ownRestartEnd(uptime, asked, ownRestarts);
  const before = { start: asked.start, end: own.end };
  const upTo = (series: readonly MatrixSeries[]) =>
    series.map((s) => ({ ...s, points: s.points.filter(([t]) => t < before.end) }));
  uptime = upTo(uptime);
  config = upTo(config);
  let start = before.start;
  const notes: string[] = own.note ? [own.note] : [];
  let restart: { at: number; instance: string } | null = null;
  for (const s of uptime) {
    const points = s.points.filter(([, v]) => Number.isFinite(v));
    for (let i = 0; i < points.length; i++) {
      const [t, v] = points[i]!;
      const prev = i > 0 ? points[i - 1]![1] : null;
      const at = t - v;
      const restarted = (prev !== null && v < prev) || (i === 0 && at > before.start);
      if (restarted && at < before.end && (restart === null || at > restart.at))
        restart = { at, instance: s.labels["instance"] ?? "?" };
    }
  }
  if (restart && restart.at + warmupSeconds > start) {
    start = Math.min(restart.at + warmupSeconds, before.end);
    notes.push(
      `baseline cut to ${minutes(before.end - start)} of the ${minutes(before.end - before.start)} asked: ${restart.instance} restarted at ${isoTime(restart.at)} (warm-up of ${warmupSeconds} s excluded after it)`,
    );
  }
  const firstSeen = new Map<string, number[]>();
  for (const s of config) {
    const instance = s.labels["instance"];
    const t0 = s.points[0]?.[0];
    if (instance === undefined || t0 === undefined) continue;
    firstSeen.set(instance, [...(firstSeen.get(instance) ?? []), t0]);
  }
  let change: { at: number; instance: string } | null = null;
  for (const [instance, starts] of firstSeen) {
    if (starts.length < 2) continue;
    const at = Math.max(...starts);
    if (change === null || at > change.at) change = { at, instance };
  }
  if (change && change.at > start) {
    start = change.at;
    notes.push(
      `baseline cut to ${minutes(before.end - start)} of the ${minutes(before.end - before.start)} asked: the InnoDB settings of ${change.instance} changed at ${isoTime(change.at)}`,
    );
  }
  return { start, end: before.end, notes };
}

/**
 * Where the baseline's data starts when Prometheus holds less history than asked (its earliest
 * sample), with a note saying so; the window as given otherwise.
 */
function earliestSample(
  bySignal: Map<string, { before: Map<string, MatrixSeries> }>,
  asked: { start: number; end: number },
  used: { start: number; end: number },
  step: number,
): { start: number; notes: string[] } {
  let earliest = Number.POSITIVE_INFINITY;
  for (const { before } of bySignal.values())
    for (const s of before.values()) {
      const t = s.points.find(([ts, v]) => ts >= used.start && Number.isFinite(v))?.[0];
      if (t !== undefined && t < earliest) earliest = t;
    }
  if (!Number.isFinite(earliest) || earliest <= used.start + 2 * step || earliest >= used.end)
    return { start: used.start, notes: [] };
  return {
    start: earliest,
    notes: [
      `baseline capped at the earliest sample Prometheus holds (${isoTime(earliest)}): ${minutes(used.end - earliest)} of the ${minutes(asked.end - asked.start)} asked`,
    ],
  };
}

/** Fresh facts (with declarations) and replication state of the instances a pre-wave gate checks. */
export async function fetchHealth(
  api: PromQueryApi,
  instances: readonly string[],
  opts: ObserveOptions,
  count: { n: number },
  warnings: string[],
): Promise<Health[]> {
  if (instances.length === 0) return [];
  const fleet = await buildFleetFacts(api, {
    window: opts.factsWindow ?? "1h",
    ...opts.factsOptions,
    at: opts.now,
    selector: { instance: oneOf(instances) },
  });
  count.n += fleet.queries;
  warnings.push(...fleet.warnings);
  const merged = applyMetadata(
    fleet.facts,
    opts.metadata,
    new Set(fleet.facts.map((f) => f.identity.instance)),
  );
  const byInstance = new Map<string, InstanceFacts>(merged.facts.map((f) => [f.identity.instance, f]));
  const replication = await (opts.replication ?? prometheusReplication)(api, instances, opts.now);
  return instances.map((instance) => ({
    instance,
    at: opts.now,
    facts: byInstance.get(instance) ?? null,
    replication: replication.get(instance) ?? null,
  }));
}

/**
 * Read-backs and fresh facts for every instance a reconciler pass needs, fetched once for all
 * rollouts (the request count stays the same whatever the number of rollouts and instances).
 * Throws when Prometheus fails: nothing partial is returned.
 */
export async function fetchShared(
  api: PromQueryApi,
  opts: ObserveOptions & { readBacks: readonly string[]; health: readonly string[] },
): Promise<{
  readBacks: Map<string, ReadBack>;
  health: Map<string, Health>;
  queries: number;
  warnings: string[];
}> {
  const count = { n: 0 };
  const warnings: string[] = [];
  const [health, readBacks] = await Promise.all([
    fetchHealth(api, opts.health, opts, count, warnings),
    fetchReadBacks(api, opts.readBacks, opts.now, opts.rateWindow ?? DEFAULT_WINDOW, count, warnings),
  ]);
  return {
    readBacks: new Map(readBacks.map((r) => [r.instance, r])),
    health: new Map(health.map((h) => [h.instance, h])),
    queries: count.n,
    warnings: [...new Set(warnings)],
  };
}

/** The bake series of one rollout's judgements. */
export async function fetchBakes(
  api: PromQueryApi,
  requests: readonly BakeRequest[],
  opts: BakeFetchOptions,
): Promise<{ series: BakeSeries[]; queries: number; warnings: string[] }> {
  const count = { n: 0 };
  const warnings: string[] = [];
  const series = await Promise.all(requests.map((b) => fetchBake(api, b, opts, count, warnings)));
  return { series, queries: count.n, warnings: [...new Set(warnings)] };
}

/** Everything one rollout's `needs` asks for; throws when Prometheus fails (nothing partial is returned). */
export async function observe(
  api: PromQueryApi,
  needs: NextActions["observations"],
  opts: ObserveOptions,
): Promise<ObserveResult> {
  const shared = await fetchShared(api, {
    ...opts,
    readBacks: [...new Set(needs.readBacks)],
    health: [...new Set(needs.health)],
  });
  const bakes = await fetchBakes(api, needs.bakes, {
    ...(opts.rateWindow ? { window: opts.rateWindow } : {}),
    ...(opts.bakeStepSeconds ? { stepSeconds: opts.bakeStepSeconds } : {}),
  });
  const activeRollouts = needs.activeRollouts && opts.activeRollouts ? await opts.activeRollouts() : null;
  return {
    observations: {
      health: [...shared.health.values()],
      readBacks: [...shared.readBacks.values()],
      bakes: bakes.series,
      activeRollouts,
    },
    queries: shared.queries + bakes.queries,
    warnings: [...new Set([...shared.warnings, ...bakes.warnings])],
  };
}

/**
 * InstanceFacts of the instances matching `selector` at `at`, with declarations overlaid: the
 * candidates of a rollout plan. Conflicts between declared and measured facts come back as warnings.
 */
export async function candidateFacts(
  api: PromQueryApi,
  opts: {
    at: number;
    window?: string;
    selector?: Selector;
    metadata?: MetadataByInstance;
    /** Other facts options (a replay's own, so its recorded query texts are asked). */
    factsOptions?: ObserveOptions["factsOptions"];
  },
): Promise<{
  facts: InstanceFacts[];
  warnings: string[];
  skipped: { instance: string; reason: string }[];
  queries: number;
}> {
  const fleet = await buildFleetFacts(api, {
    window: opts.window ?? "1h",
    ...opts.factsOptions,
    at: opts.at,
    ...(opts.selector ? { selector: opts.selector } : {}),
  });
  const merged = applyMetadata(fleet.facts, opts.metadata);
  return {
    facts: merged.facts,
    warnings: [...fleet.warnings, ...merged.warnings],
    skipped: [...fleet.skipped],
    queries: fleet.queries,
  };
}
