import type { RolloutEvent } from "@untorn/rollout/events";
import { utc } from "../../lib/format.js";
import { actorText } from "../../lib/rollout-view.js";

/** The audit: every event of the rollout, oldest first, with who and when. */
export function Timeline({ events }: { events: readonly RolloutEvent[] }) {
  return (
    <div className="table-scroll">
      <table className="data" data-testid="rollout-timeline">
        <caption className="visually-hidden">Audit timeline, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Event</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.seq} data-event={e.type}>
              <td className="num">{e.seq}</td>
              <td>{utc(e.at)}</td>
              <td>{actorText(e.actor)}</td>
              <td>
                {e.type}
                {e.wave !== undefined ? ` · wave ${e.wave}` : ""}
                {e.instance ? ` · ${e.instance}` : ""}
              </td>
              <td>
                {e.message}
                {e.output ? (
                  <details>
                    <summary>Hook output</summary>
                    <pre>
                      <code>{e.output}</code>
                    </pre>
                  </details>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
