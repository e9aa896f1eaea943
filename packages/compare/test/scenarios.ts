// Builders for simulated comparison inputs shared by the scenario and calibration tests.
import { ComparisonInput, type ComparisonInputJson } from "../src/input.js";
import { createRng, type Rng } from "../src/prng.js";
import { type SimulationSpec, sharedFactor, simulateSeries } from "../src/simulate.js";

export const DAY = 86_400;
export const HOUR = 3_600;
/** 2026-01-01T00:00:00Z, a Thursday. */
export const T0 = 1_767_225_600;

/** Realistic 15 s noise: 10% log-scale SD, lag-1 0.9 (correlation time ~ 2.5 min), 0.5% stalls. */
export const REALISTIC = {
  step: 15,
  noise: { sd: 0.1, phi: 0.9 },
  seasonality: { amplitude: 0.3, peakHour: 14 },
  outliers: { rate: 0.005, scale: 0.3 },
} as const;

/** A window starting `day` days and `hour` hours after T0, `seconds` long. */
export function at(day: number, hour: number, seconds: number, level = 1000): Omit<SimulationSpec, "seed"> {
  return { ...REALISTIC, start: T0 + day * DAY + hour * HOUR, seconds, level };
}

export interface InstanceSpec {
  readonly id: string;
  readonly role: "treated" | "control";
  readonly restarts?: number[];
  readonly series: Record<string, { before: SimulationSpec; after: SimulationSpec }>;
}

export function buildInput(
  seed: number,
  metrics: ComparisonInputJson["metrics"],
  instances: readonly InstanceSpec[],
  options: ComparisonInputJson["options"] = {},
): ComparisonInput {
  const rng = createRng(seed);
  return ComparisonInput.parse({
    seed,
    metrics,
    instances: instances.map((inst) => ({
      id: inst.id,
      role: inst.role,
      ...(inst.restarts ? { restarts: inst.restarts } : {}),
      series: Object.fromEntries(
        Object.entries(inst.series).map(([id, s]) => [
          id,
          { before: simulateSeries(s.before, rng), after: simulateSeries(s.after, rng) },
        ]),
      ),
    })),
    options,
  });
}

/** Fleet-wide load factor shared by a treated instance and its controls. */
export function fleetLoad(seconds: number, step: number, rng: Rng, shift = 1): Float64Array {
  const f = sharedFactor(Math.floor(seconds / step), 0.1, 0.9, rng);
  return f.map((x) => x * shift);
}

// A/A calibration scenarios (no change unless `effect`), shared by the calibration test and
// test/calibration-figures.ts.

// Same clock hour on consecutive days (matched hours), 1-hour windows.
export const throughputAA = (seed: number, effect = 1) =>
  buildInput(
    seed,
    [{ id: "tps", kind: "throughput" }],
    [
      {
        id: "db",
        role: "treated",
        series: { tps: { before: at(0, 10, HOUR), after: { ...at(1, 10, HOUR), effect } } },
      },
    ],
  );

export const latencyAA = (seed: number) => {
  const spiky = (day: number) => ({ ...at(day, 10, HOUR, 0.004), outliers: { rate: 0.01, scale: 5 } });
  return buildInput(
    seed,
    [{ id: "commit_latency", kind: "latency" }],
    [{ id: "db", role: "treated", series: { commit_latency: { before: spiky(0), after: spiky(1) } } }],
  );
};

// Canary and sibling replica share the fleet load; the after window is at another hour and the fleet
// load moved by a random factor in 0.6..1.4.
export const didAA = (seed: number) => {
  const rng = createRng(10_000 + seed);
  const shift = 0.6 + 0.8 * rng.next();
  const before = fleetLoad(HOUR, 15, rng);
  const after = fleetLoad(HOUR, 15, rng, shift);
  const w = (hour: number, shared: Float64Array) => ({ ...at(0, hour, HOUR), shared });
  return buildInput(
    seed,
    [{ id: "tps", kind: "throughput" }],
    [
      { id: "canary", role: "treated", series: { tps: { before: w(9, before), after: w(14, after) } } },
      { id: "sibling", role: "control", series: { tps: { before: w(9, before), after: w(14, after) } } },
    ],
  );
};

// A counter with gaps in both windows and a restart (counter reset) in the after window, 6-hour
// windows at the same hours.
export const counterAA = (seed: number) => {
  const rng = createRng(20_000 + seed);
  const after = at(1, 6, 6 * HOUR, 40);
  const restart = after.start + Math.floor(rng.next() * 5 * HOUR);
  const common = { counter: true, gaps: { count: 2, seconds: 600 } };
  return buildInput(
    seed,
    [{ id: "write_ops", kind: "efficiency", counter: true }],
    [
      {
        id: "db",
        role: "treated",
        series: {
          write_ops: {
            before: { ...at(0, 6, 6 * HOUR, 40), ...common },
            after: { ...after, ...common, resets: [restart] },
          },
        },
      },
    ],
  );
};
