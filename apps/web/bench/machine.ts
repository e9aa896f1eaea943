/**
 * The machine a bench ran on, for its result file: cores, memory, Node and the 1-minute load average
 * before and after the run (absolute times on a shared machine move with its load; the ratios measured
 * side by side are the figures).
 */
import { cpus, loadavg, totalmem } from "node:os";

const round1 = (x: number) => Math.round(x * 10) / 10;

export function benchMachine(loadBefore: number, extra: Record<string, string> = {}) {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    ...extra,
    loadAverage1mBefore: round1(loadBefore),
    loadAverage1mAfter: round1(loadavg()[0]!),
  };
}
