/**
 * The rollout's controls: approve the current wave, pause, resume, abort, revert. Only an operator sees
 * them (the Server Actions check the role again). Each form carries the version the page showed, so
 * acting on a rollout someone else changed meanwhile is a conflict that names them, not a lost update.
 */
import { randomUUID } from "node:crypto";
import { permittedCommands } from "@untorn/rollout/state";
import {
  abortRollout,
  approveWave,
  attestBackup,
  pauseRollout,
  resumeRollout,
  revertRollout,
} from "../../server/rollouts/rollout-actions.js";
import { loadRollout } from "../../server/rollouts/rollout-deps.js";
import { CommandForm } from "./command-form.js";

export async function RolloutControls({
  id,
  version,
  status,
  canOperate,
  now,
  frozenAt,
}: {
  id: string;
  version: number;
  status: string;
  canOperate: boolean;
  /** The data source's "now" (Unix seconds): the backup field's default. */
  now: number;
  /** Set on a recording: its end, where time stands still. */
  frozenAt: number | null;
}) {
  if (!canOperate)
    return <p className="subtle">Approving, pausing, aborting and reverting need the operator role.</p>;
  const stored = await loadRollout(id);
  const s = stored?.state;
  // What the state machine would accept now, on the data source's clock: the one answer the controls,
  // the CLI and "What happens next" share.
  const may = s ? permittedCommands(s, now) : null;
  const w = may?.approve != null ? s?.waves[may.approve] : undefined;
  const hidden = () => ({ id, version: String(version), key: randomUUID(), status });
  const reason = (verb: string) => [{ name: "reason", label: `Why ${verb} (kept in the audit)` }];
  // A backup is worth attesting (again) while a wave has not started: the pre-wave gate reads the latest.
  const attestable = may?.attestBackup === true && s!.waves.some((x) => x.phase === "pending");
  const backup = s?.backup ?? null;
  const minute = (t: number) => new Date(t * 1000).toISOString().slice(0, 16);
  return (
    <section className="section rollout-controls" aria-labelledby="rollout-controls-title">
      <h2 id="rollout-controls-title">Actions</h2>
      <div className="controls-grid">
        {w && (
          <CommandForm
            action={approveWave}
            name="approve"
            hidden={{ ...hidden(), wave: String(w.index) }}
            fields={[{ name: "note", label: "Approval note (optional)" }]}
            submit={
              w.phase === "inconclusive" ? `Accept wave ${w.index} and go on` : `Approve wave ${w.index}`
            }
          />
        )}
        {attestable && (
          <CommandForm
            action={attestBackup}
            name="attest-backup"
            hidden={hidden()}
            fields={[
              {
                name: "takenAt",
                label: "Backup taken at (UTC)",
                defaultValue: minute(now),
                hint:
                  frozenAt !== null
                    ? `On the recording's clock: it reads ${minute(frozenAt)} UTC, and a later time is in its future.`
                    : "e.g. 2026-11-25T01:30",
              },
              { name: "note", label: "Backup note (optional)" },
            ]}
            submit={backup ? "Attest a newer backup" : "Attest backup"}
          />
        )}
        {may?.pause && (
          <CommandForm
            action={pauseRollout}
            name="pause"
            hidden={hidden()}
            fields={reason("pause")}
            submit="Pause"
          />
        )}
        {may?.resume && (
          <CommandForm
            action={resumeRollout}
            name="resume"
            hidden={hidden()}
            fields={[{ name: "note", label: "Resume note (optional)" }]}
            submit="Resume"
          />
        )}
        {may?.abort && (
          <CommandForm
            action={abortRollout}
            name="abort"
            hidden={hidden()}
            fields={reason("abort")}
            submit="Abort"
            danger
          />
        )}
        {may?.revert && (
          <CommandForm
            action={revertRollout}
            name="revert"
            hidden={hidden()}
            fields={reason("revert")}
            submit="Revert"
            danger
          />
        )}
      </div>
    </section>
  );
}
