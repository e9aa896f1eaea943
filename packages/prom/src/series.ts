import type { Labels, MatrixSeries, VectorSample } from "./result.js";

/** A range series as parallel arrays: `t` in Unix seconds, `v` the values (NaN kept). */
export interface Series {
  labels: Labels;
  t: number[];
  v: number[];
}

/** Two series would land on one key: the query was not aggregated by that label. */
export class DuplicateSeriesError extends Error {
  override readonly name = "DuplicateSeriesError";
  constructor(
    readonly labelKey: string,
    readonly key: string,
    readonly first: Labels,
    readonly second: Labels,
  ) {
    super(
      `two series have ${labelKey}=${JSON.stringify(key)}: ${labelString(first)} and ${labelString(second)}; aggregate the query by (${labelKey})`,
    );
  }
}

/** A series lacks the key label. */
export class MissingLabelError extends Error {
  override readonly name = "MissingLabelError";
  constructor(
    readonly labelKey: string,
    readonly labels: Labels,
  ) {
    super(`series ${labelString(labels)} has no "${labelKey}" label; keep it in the query's by (...) clause`);
  }
}

function labelString(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `{${parts.join(", ")}}`;
}

function keyOf(labels: Labels, labelKey: string): string {
  const key = labels[labelKey];
  if (key === undefined) throw new MissingLabelError(labelKey, labels);
  return key;
}

/**
 * Value per `labelKey` value of an instant vector, e.g. per instance.
 * @throws MissingLabelError when a sample lacks the label; DuplicateSeriesError when two share it.
 * @example toSeriesMap(vector).get("db1:9104") // 0.42
 */
export function toSeriesMap(vector: readonly VectorSample[], labelKey = "instance"): Map<string, number> {
  const out = new Map<string, number>();
  const seen = new Map<string, Labels>();
  for (const s of vector) {
    const key = keyOf(s.labels, labelKey);
    const prior = seen.get(key);
    if (prior) throw new DuplicateSeriesError(labelKey, key, prior, s.labels);
    seen.set(key, s.labels);
    out.set(key, s.value);
  }
  return out;
}

/** The series of a matrix as parallel time and value arrays, in the server's order. */
export function rangeToSeries(matrix: readonly MatrixSeries[]): Series[] {
  return matrix.map((s) => {
    const t = new Array<number>(s.points.length);
    const v = new Array<number>(s.points.length);
    for (let i = 0; i < s.points.length; i++) {
      const p = s.points[i]!;
      t[i] = p[0];
      v[i] = p[1];
    }
    return { labels: s.labels, t, v };
  });
}

/**
 * rangeToSeries keyed by the value of `labelKey`.
 * @throws MissingLabelError, DuplicateSeriesError as toSeriesMap.
 */
export function rangeToSeriesMap(
  matrix: readonly MatrixSeries[],
  labelKey = "instance",
): Map<string, Series> {
  const out = new Map<string, Series>();
  for (const s of rangeToSeries(matrix)) {
    const key = keyOf(s.labels, labelKey);
    const prior = out.get(key);
    if (prior) throw new DuplicateSeriesError(labelKey, key, prior.labels, s.labels);
    out.set(key, s);
  }
  return out;
}
