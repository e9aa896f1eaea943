import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PreparedPair, PreparedWindow } from "./prepare-window.js";
import { createRng } from "./prng.js";
import { rawLag1 } from "./raw-lag1.js";
import { medianInPlace } from "./stats/median.js";

/**
 * The estimate written out step by step, as rawLag1 once computed it: residuals per sample, the
 * pairs (x, y) one step apart, u = x + y and v = x − y, each MAD by selection in place.
 */
function reference(treated: PreparedPair, controls: readonly PreparedPair[]): number {
  const lag1Of = (pair: PreparedPair, cs: readonly PreparedPair[]): number => {
    const xs: number[] = [];
    const ys: number[] = [];
    let used = 0;
    let cells = 0;
    for (const which of ["before", "after"] as const) {
      const { t, v, step } = pair[which];
      const n = t.length;
      const control = cs.length > 0 ? aligned(pair[which], cs, which) : undefined;
      const keep = Array.from({ length: n }, (_, i) => !control || !Number.isNaN(control[i]!));
      const hour = (x: number) => Math.floor((((x % 86_400) + 86_400) % 86_400) / 3_600);
      const sumX = new Float64Array(24);
      const sumC = new Float64Array(24);
      const count = new Float64Array(24);
      for (let i = 0; i < n; i++) {
        if (!keep[i]) continue;
        sumX[hour(t[i]!)]! += v[i]!;
        if (control) sumC[hour(t[i]!)]! += control[i]!;
        count[hour(t[i]!)]! += 1;
      }
      for (let k = 0; k < 24; k++) if (count[k]! > 0) cells++;
      const residual = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        if (!keep[i]) continue;
        used++;
        const h = hour(t[i]!);
        const mx = sumX[h]! / count[h]!;
        const mc = sumC[h]! / count[h]!;
        residual[i] = (mx > 0 ? v[i]! / mx - 1 : 0) - (control && mc > 0 ? control[i]! / mc - 1 : 0);
      }
      for (let i = 1; i < n; i++) {
        if (!keep[i] || !keep[i - 1] || Math.abs(t[i]! - t[i - 1]! - step) > 0.5 * step) continue;
        xs.push(residual[i - 1]!);
        ys.push(residual[i]!);
      }
    }
    if (cs.length > 0 && used < (pair.before.t.length + pair.after.t.length) / 2) return Number.NaN;
    const mad = (a: Float64Array) => {
      const m = medianInPlace(a);
      for (let i = 0; i < a.length; i++) a[i] = Math.abs(a[i]! - m);
      return medianInPlace(a);
    };
    let raw = Number.NaN;
    if (xs.length >= 8) {
      const su = mad(Float64Array.from(xs, (x, i) => x + ys[i]!));
      const sv = mad(Float64Array.from(xs, (x, i) => x - ys[i]!));
      const den = su * su + sv * sv;
      raw = den > 0 ? (su * su - sv * sv) / den : Number.NaN;
    }
    const k = cells / Math.max(used, 1);
    return Number.isFinite(raw) && 3 * k < 0.9 ? Math.min((raw + k) / (1 - 3 * k), 0.999) : raw;
  };
  const aligned = (w: PreparedWindow, cs: readonly PreparedPair[], which: "before" | "after") => {
    const sum = new Float64Array(w.t.length);
    const count = new Float64Array(w.t.length);
    for (const c of cs) {
      let scale = 0;
      for (const x of c.before.v) scale += x;
      scale /= c.before.v.length;
      if (!(scale > 0)) continue;
      const at = new Map(Array.from(c[which].t, (x, j) => [x, c[which].v[j]!]));
      w.t.forEach((x, i) => {
        const cv = at.get(x);
        if (cv === undefined) return;
        sum[i]! += cv / scale;
        count[i]! += 1;
      });
    }
    return sum.map((s, i) => (count[i]! > 0 ? s / count[i]! : Number.NaN));
  };
  if (controls.length === 0) return lag1Of(treated, []);
  const together = lag1Of(treated, controls);
  if (Number.isFinite(together)) return together;
  const separate = [treated, ...controls].map((p) => lag1Of(p, [])).filter(Number.isFinite);
  return separate.length > 0 ? Math.max(...separate) : Number.NaN;
}

/**
 * A window on a 15 s grid from `start`, samples dropped where `present` is false; with `offGrid`, each
 * time moved by a fraction of a second that depends on its position only (every window still shares
 * its times with the others, but none lies on a 15 s grid).
 */
function window(
  start: number,
  values: readonly number[],
  present: readonly boolean[],
  offGrid = false,
): PreparedWindow {
  const t: number[] = [];
  const v: number[] = [];
  values.forEach((x, i) => {
    if (!present[i]) return;
    t.push(start + 15 * i + (offGrid ? ((i * 0.37) % 1) + 0.01 : 0));
    v.push(x);
  });
  return { t: Float64Array.from(t), v: Float64Array.from(v), step: 15, resets: [], flags: [], coverage: 1 };
}

const seriesOf = (offGrid: boolean) =>
  fc
    .tuple(
      fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 0, maxLength: 400, size: "max" }),
      fc.array(fc.boolean(), { minLength: 400, maxLength: 400 }),
      fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 0, maxLength: 400, size: "max" }),
      fc.array(fc.boolean(), { minLength: 400, maxLength: 400 }),
    )
    .map(
      ([b, bp, a, ap]): PreparedPair => ({
        before: window(1_767_225_600 - 3_000, b, bp, offGrid),
        after: window(1_767_225_600 + 86_400, a, ap, offGrid),
      }),
    );
const series = seriesOf(false);

describe("rawLag1", () => {
  it("pairs only samples that are consecutive and both aligned with a control", () => {
    // A slow wave and noise (a pure wave would put ρ at the 0.999 cap whatever the pairs).
    const rng = createRng(7);
    const wave = (n: number, phase: number) =>
      Array.from({ length: n }, (_, i) => 100 + 10 * Math.sin(i / 7 + phase) + 20 * rng.next());
    const all = new Array(400).fill(true);
    const treated = {
      before: window(1_767_225_600, wave(400, 0), all),
      after: window(1_767_225_600 + 86_400, wave(400, 1), all),
    };
    // The control misses every third sample: those treated samples are left out, and no pair spans them.
    const holes = all.map((_, i) => i % 3 !== 0);
    const control = {
      before: window(1_767_225_600, wave(400, 2), holes),
      after: window(1_767_225_600 + 86_400, wave(400, 3), holes),
    };
    const rho = rawLag1(treated, [control]);
    expect(Number.isFinite(rho)).toBe(true);
    expect(Object.is(rho, reference(treated, [control]))).toBe(true);
  });
  it("gives bit for bit the estimate written out step by step, with and without controls", () => {
    fc.assert(
      fc.property(series, fc.array(series, { maxLength: 3 }), (treated, controls) => {
        expect(Object.is(rawLag1(treated, controls), reference(treated, controls))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
  it("gives the same bit for bit when the times are off any step grid (the controls' times merged)", () => {
    const offGrid = seriesOf(true);
    fc.assert(
      fc.property(offGrid, fc.array(fc.oneof(offGrid, series), { maxLength: 3 }), (treated, controls) => {
        expect(Object.is(rawLag1(treated, controls), reference(treated, controls))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
