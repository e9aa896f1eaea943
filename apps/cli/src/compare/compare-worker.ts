// A worker thread of compareParallel (parallel.ts): analyses the instances it is sent
// against the controls it started with, and posts back each instance's analysis or error.
import { parentPort, workerData } from "node:worker_threads";
import { type ComparisonPlan, instanceAnalyser } from "@untorn/compare/compare";
import type { Instance } from "@untorn/compare/input";
import type { ToWorker, WorkerSetup } from "./parallel.js";

const { plan, controls } = workerData as WorkerSetup;
const analyse = instanceAnalyser(plan as ComparisonPlan, controls as Instance[]);
const port = parentPort!;
port.on("message", (m: ToWorker) => {
  try {
    const inst = m.instance ?? controls[m.control!]!;
    port.postMessage({ index: m.index, analysis: analyse(inst as Instance) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    port.postMessage({ index: m.index, error: { name: e.name, message: e.message, stack: e.stack } });
  }
});
