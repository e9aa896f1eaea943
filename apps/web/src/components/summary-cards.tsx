import type { FleetSummary } from "../lib/fleet-row.js";
import { bytes, num, pct } from "../lib/format.js";

/** The fleet at a glance: write-bound count, safe doublewrite removals, and the write I/O they save. */
export function SummaryCards({ summary, stale }: { summary: FleetSummary; stale: boolean }) {
  const wb = summary.verdicts["write-bound"];
  return (
    <section aria-label="Fleet summary">
      <dl className="cards">
        <div className="card">
          <dt>Instances</dt>
          <dd>
            {num(summary.instances)}
            <span className="card-note">
              {summary.skipped > 0 ? `${num(summary.skipped)} seen without usable facts` : "all with facts"}
              {stale ? " · stale" : ""}
            </span>
          </dd>
        </div>
        <div className="card">
          <dt>Write-bound</dt>
          <dd>
            {num(wb)}
            <span className="card-note">{num(summary.verdicts.likely)} more likely write-bound</span>
          </dd>
        </div>
        <div className="card">
          <dt>Could safely drop doublewrite</dt>
          <dd>
            {num(summary.canDropDoublewrite)}
            <span className="card-note">safety gate verified, doublewrite still on</span>
          </dd>
        </div>
        <div className="card">
          <dt>Waiting for the safety gate</dt>
          <dd>
            {num(summary.blockedByGate)}
            <span className="card-note">write-bound or likely, storage not verified atomic</span>
          </dd>
        </div>
        <div className="card">
          <dt>Estimated write I/O saved</dt>
          <dd>
            {bytes(summary.savedBytesPerSecond)}/s
            <span className="card-note">
              {summary.savedShare !== null
                ? `${pct(summary.savedShare)} of the fleet's ${bytes(summary.fleetWriteBytesPerSecond)}/s of writes`
                : "fleet write volume unknown"}
            </span>
          </dd>
        </div>
        <div className="card">
          <dt>At risk</dt>
          <dd>
            {num(summary.atRisk)}
            <span className="card-note">critical or error findings</span>
          </dd>
        </div>
      </dl>
    </section>
  );
}
