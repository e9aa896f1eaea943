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
