import type { Metadata } from "next";
import Link from "next/link";
import { Forbidden } from "../../../components/forbidden.js";
import { RolloutControls } from "../../../components/rollout/controls.js";
import { StepDone } from "../../../components/rollout/step-done.js";
import { utc } from "../../../lib/format.js";
import { ACTIONS, allows } from "../../../lib/permissions.js";
import { requirePage } from "../../../server/access.js";
import { loadRollout, rolloutClock } from "../../../server/rollouts.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Rollout" };

type Params = Promise<{ id: string }>;

const at = (t: number | null) => (t === null ? "–" : utc(new Date(t * 1000)));

/**
 * The rollout's state, its current wave's steps with "mark step done", and the controls. The full page
 * (gates and evidence, charts, comparison, timeline) is the read side's.
 */
export default async function RolloutPage({ params }: { params: Params }) {
  const segment = (await params).id;
  const who = await requirePage("/rollouts/[id]", `/rollouts/${encodeURIComponent(segment)}`);
  if (who === "forbidden") return <Forbidden needed="viewer" />;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(segment))
    return (
      <div className="banner banner-bad" role="alert">
        <strong>Bad rollout id in the URL.</strong> <Link href="/recommendations">Recommendations</Link>
      </div>
    );
  const stored = await loadRollout(segment);
  if (!stored)
    return (
      <div className="empty" role="alert">
        <h1>No rollout “{segment}”</h1>
      </div>
    );
  const s = stored.state;
  const canOperate = allows(who.role, ACTIONS.markStepDone);
  const wave = s.currentWave !== null ? s.waves[s.currentWave] : undefined;
  const frozenAt = rolloutClock().frozenAt;
  const lastGate = [...s.events].reverse().find((e) => e.type.startsWith("gate") || e.gate !== undefined);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{s.title}</h1>
          <p className="subtle">
            Rollout <code>{s.id}</code>, created by {s.createdBy.id} at {at(s.createdAt)}; last changed by{" "}
            {stored.updatedBy} at {utc(stored.updatedAt)} (version {stored.version}).
          </p>
          <p>
            Status: <strong data-testid="rollout-status">{s.status}</strong>
            {s.pause ? ` (${s.pause.message})` : ""}
          </p>
        </div>
      </div>
      {frozenAt !== null && (
        <div className="banner banner-info" role="note">
          <strong>Recorded data: time stands still at {at(frozenAt)}.</strong> Gates read the recording as it
          was then. A bake after a step marked done never fills, so a wave cannot pass on recorded data.
        </div>
      )}
      {lastGate && (
        <p data-testid="last-gate">
          Last gate: {lastGate.message} <span className="subtle">({at(lastGate.at)})</span>
        </p>
      )}
      {wave && (
        <section className="section" aria-labelledby="wave-title">
          <h2 id="wave-title">
            Wave {wave.index} ({wave.kind}): {wave.phase}
            {wave.approvedBy ? `, approved by ${wave.approvedBy.id}` : ""}
          </h2>
          <table className="data" aria-labelledby="wave-title">
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Step</th>
                <th scope="col">Status</th>
                <th scope="col">Marked done</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {wave.instances.map((i) => {
                const st = s.instances.find((x) => x.instance === i);
                const step = s.plan.steps.find((x) => x.instance === i);
                return (
                  <tr key={i}>
                    <th scope="row">{i}</th>
                    <td>{step ? `${step.title}` : "–"}</td>
                    <td>{st?.status ?? "–"}</td>
                    <td>{st?.appliedAt ? `${at(st.appliedAt)} by ${st.appliedBy?.id ?? "?"}` : "–"}</td>
                    <td>
                      {st?.status === "pending" || st?.status === "applying" ? (
                        <StepDone
                          id={s.id}
                          version={stored.version}
                          instance={i}
                          wave={wave.index}
                          canOperate={canOperate}
                        />
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      <RolloutControls id={s.id} version={stored.version} status={s.status} canOperate={canOperate} />
      <section className="section" aria-labelledby="events-title">
        <h2 id="events-title">Audit</h2>
        <ol data-testid="rollout-events">
          {s.events.slice(-20).map((e) => (
            <li key={e.seq}>
              {at(e.at)} · {e.actor.id} · {e.type}: {e.message}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
