import { num } from "../lib/format.js";
import { fleetReading } from "../server/fleet/data.js";
import { Elapsed } from "./elapsed.js";

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/**
 * Shown while the fleet is being read (the first read after a start takes seconds at 10,000 instances):
 * which step it is at and how far, instead of an empty page. Nothing when no read is under way.
 */
export function FleetReading() {
  const r = fleetReading();
  if (!r) return null;
  const step =
    r.phase === "replay"
      ? `reading the replay file ${r.file}: ${mb(r.bytesRead)} of ${mb(r.bytes)} MB (${Math.floor((100 * r.bytesRead) / Math.max(r.bytes, 1))} %)`
      : r.phase === "kept"
        ? "loading the fleet read kept from before the restart and advising it"
        : r.phase === "facts"
          ? "computing every instance's facts from the answers"
          : `advising ${r.instances === null ? "every instance" : `${num(r.instances)} instances`}`;
  return (
    <div className="banner" role="status" data-testid="fleet-reading">
      <strong>Reading the fleet</strong>
      {step}; <Elapsed since={r.since} at={Date.now()} /> so far. The page fills in when it is done.
    </div>
  );
}
