/**
 * What a person may send now (permittedCommands, the state machine's own rules) and what is due now
 * (nextActions: observations to fetch, hooks to fire, human actions drawn from those permissions, the
 * next wake-up).
 */
import { refusalOf } from "./apply.js";
import { CATCH_UP_SIGNALS } from "./catch-up.js";
import type { Command } from "./commands.js";
import { iso, step, waveOfReplicas } from "./draft.js";
import type { Actor } from "./events.js";
import { bakeWindows, gateReplicas } from "./reconcile.js";
import type { InstanceState, RolloutState, RolloutStatus } from "./state-schema.js";

export interface BakeRequest {
  readonly wave: number;
  readonly instances: readonly { readonly id: string; readonly role: "treated" | "control" }[];
  /** Catalog signal ids with the compare kind. */
  readonly metrics: readonly {
    readonly metric: string;
    readonly kind: "throughput" | "latency" | "efficiency";
  }[];
  readonly windows: {
    readonly before: { start: number; end: number };
    readonly after: { start: number; end: number };
  };
  /** Restart times to report (warm-up is excluded after them). */
  readonly restarts: readonly number[];
  /** The policy's block length for the comparison (ratio metrics are summed per block, as compare aligns them). */
  readonly blockSeconds: number | "auto";
  /**
   * Present for a sequential judgement: the look schedule. The series are then read at the scrape
   * step in both windows (the baseline's autocorrelation is measured at that step), ratio metrics
   * summed per sample rather than per block, and the before window is the baseline from history.
   */
  readonly sequential?: {
    readonly lookEverySeconds: number;
    readonly maxSeconds: number;
    /** Excluded after a restart found in the baseline (the policy's warm-up). */
    readonly warmupSeconds: number;
    /**
     * When the wave's steps began (its pre-wave gate passed): a restart of a changed instance since then
     * is the change's own, so the baseline ends there rather than restarting after it. Absent in a
     * request from an older core.
     */
    readonly changeStartedAt?: number | null;
  };
  /**
   * Plain catalog signals the judgement reads besides the judged metrics (the catch-up judgement's
   * replication lag and apply rate, CATCH_UP_SIGNALS), returned under their ids in each instance's
   * `series`, on the same time grid as the judged metrics. Empty for a wave of primaries.
   */
  readonly signals: readonly string[];
}

export interface HumanAction {
  readonly kind: "attest-backup" | "approve" | "apply-step" | "apply-revert" | "decide" | "resume";
  readonly wave?: number;
  readonly instance?: string;
  readonly message: string;
}

export interface NextActions {
  readonly status: RolloutStatus;
  /** What reconcile needs now. */
  readonly observations: {
    /** Fresh facts and replication state (pre-wave gate). */
    readonly health: readonly string[];
    readonly activeRollouts: boolean;
    /** Read-backs of steps and reverts awaiting verification. */
    readonly readBacks: readonly string[];
    readonly bakes: readonly BakeRequest[];
  };
  /** Hooks to fire now (send hook-started first, then hook-result). */
  readonly hooks: readonly { readonly instance: string; readonly wave: number; readonly hook: string }[];
  /** What a person should do now, each a command permittedCommands says the state machine takes. */
  readonly human: readonly HumanAction[];
  /** The next time a time-based gate moves without any command (verify timeout, bake end). */
  readonly wakeAt: number | null;
}

/**
 * What the people should do now, each with its reason: only commands `may` (permittedCommands) says
 * the state machine takes, so nothing here is refused. Not every permitted command is due: while
 * paused only resume (or the inconclusive wave's decision) is, though a step underway may still be
 * marked done; a hook applier's steps are the hook's; a backup is due only when missing or too old.
 */
function humanActions(s: RolloutState, now: number, may: PermittedCommands): HumanAction[] {
  const human: HumanAction[] = [];
  const w = s.currentWave === null ? undefined : s.waves[s.currentWave];
  const revertDone = new Set(may.revertDone);
  for (const i of s.instances)
    if (revertDone.has(i.instance))
      human.push({
        kind: "apply-revert",
        wave: i.wave,
        instance: i.instance,
        message: `Revert ${i.instance}: ${step(s, i.instance)?.revert.steps[0] ?? ""}`,
      });
  if (may.resume)
    human.push(
      // Paused on an inconclusive wave, approve accepts it.
      s.pause?.reason === "inconclusive" && may.approve !== null
        ? {
            kind: "decide",
            wave: may.approve,
            message: "The wave is inconclusive: approve to accept it, resume to judge again, or revert.",
          }
        : { kind: "resume", message: `Paused (${s.pause?.reason}): ${s.pause?.message ?? ""}` },
    );
  if (s.status === "halted" && (may.revert || may.abort))
    human.push({ kind: "decide", wave: w?.index, message: "Halted: revert (proposed) or abort." });
  if (s.status !== "active" || !w) return human;
  const stale = s.backup === null || now - s.backup.takenAt > s.policy.backupMaxAgeSeconds;
  if (w.phase === "pending" && stale && may.attestBackup)
    human.push({
      kind: "attest-backup",
      wave: w.index,
      message:
        s.backup === null
          ? "Attest a recent backup before the wave."
          : `The backup attested (taken ${iso(s.backup.takenAt)}) is older than the policy's ${Math.round(s.policy.backupMaxAgeSeconds / 3600)} h: attest a newer one before the wave.`,
    });
  if (may.approve === w.index)
    human.push({
      kind: "approve",
      wave: w.index,
      message: `Approve wave ${w.index} (${w.kind}): ${w.instances.join(", ")}.`,
    });
  if (s.policy.applier.kind === "operator") {
    const stepDone = new Set(may.stepDone);
    for (const id of w.instances)
      if (stepDone.has(id))
        human.push({
          kind: "apply-step",
          wave: w.index,
          instance: id,
          message: `${id}: ${step(s, id)?.title ?? ""}, then mark it done.`,
        });
  }
  return human;
}

/**
 * What the reconciler and the people should do now. Pure. The observations, hooks and wake-up follow
 * reconcile's gates; the human actions are drawn from permittedCommands (humanActions).
 */
export function nextActions(state: RolloutState, now: number): NextActions {
  const s = state;
  const health: string[] = [];
  const readBacks: string[] = [];
  const bakes: BakeRequest[] = [];
  const hooks: { instance: string; wave: number; hook: string }[] = [];
  let activeRollouts = false;
  const wakes: number[] = [];
  if (s.status === "reverting") {
    for (const i of s.instances)
      if (i.status === "revert-applied") {
        readBacks.push(i.instance);
        if (!i.timedOut) wakes.push(i.revertAppliedAt! + s.policy.verifyTimeoutSeconds + 1);
      }
  }
  if (s.status === "active" || s.status === "paused") {
    for (const i of s.instances)
      if (i.status === "applied") {
        readBacks.push(i.instance);
        wakes.push(i.appliedAt! + s.policy.verifyTimeoutSeconds + 1);
      }
  }
  const w = s.currentWave === null ? undefined : s.waves[s.currentWave];
  if (s.status === "active" && w) {
    if (w.phase === "pending" && w.approvedAt !== null) {
      health.push(...new Set([...w.instances, ...w.controls, ...gateReplicas(s, w)]));
      activeRollouts = true;
    }
    if (w.phase === "applying" && s.policy.applier.kind === "hook") {
      for (const id of w.instances)
        if (s.instances.find((x) => x.instance === id)!.status === "pending")
          hooks.push({ instance: id, wave: w.index, hook: s.policy.applier.hook });
    }
    if (w.phase === "baking" && w.nextEvaluationAt !== null) {
      if (now >= w.nextEvaluationAt) {
        const windows = bakeWindows(s, w.index, now)!;
        bakes.push({
          wave: w.index,
          instances: [
            ...w.instances.map((id) => ({ id, role: "treated" as const })),
            ...w.controls.map((id) => ({ id, role: "control" as const })),
          ],
          metrics: s.metrics.map((m) => ({
            metric: m.metric,
            kind: m.kind,
            ...(m.classes ? { classes: m.classes } : {}),
          })),
          windows,
          restarts: s.instances
            .filter((i) => i.wave === w.index && step(s, i.instance)?.restart && i.appliedAt !== null)
            .map((i) => i.appliedAt!),
          blockSeconds: s.policy.blockSeconds,
          ...(s.policy.judgement === "sequential"
            ? {
                sequential: {
                  lookEverySeconds: s.policy.lookEverySeconds,
                  maxSeconds: (w.bakeEnd ?? 0) - (w.bakeStart ?? 0),
                  warmupSeconds: s.policy.warmupSeconds,
                  changeStartedAt: w.startedAt,
                },
              }
            : {}),
          signals: waveOfReplicas(s, w.index) ? Object.values(CATCH_UP_SIGNALS) : [],
        });
      } else wakes.push(w.nextEvaluationAt);
    }
  }
  return {
    status: s.status,
    observations: { health, activeRollouts, readBacks, bakes },
    hooks,
    human: humanActions(s, now, permittedCommands(s, now)),
    wakeAt: wakes.length > 0 ? Math.min(...wakes) : null,
  };
}

/** What a person may send now, as the state machine itself answers it. */
export interface PermittedCommands {
  /** The wave an approve acts on (a pending wave, or an inconclusive one to accept), or null. */
  readonly approve: number | null;
  readonly attestBackup: boolean;
  readonly pause: boolean;
  readonly resume: boolean;
  readonly abort: boolean;
  readonly revert: boolean;
  /** Instances whose step may be marked done. */
  readonly stepDone: readonly string[];
  /** Instances whose revert step may be marked done. */
  readonly revertDone: readonly string[];
}

const PROBE_ACTOR: Actor = { id: "permission-probe", kind: "operator" };
const PROBE_KEY = "untorn:permission-probe";

/**
 * The commands `applyCommand` would accept now (with a fresh key), asked of refusalOf, the rules
 * applyCommand itself applies: one answer that the console's controls and step rows offer, and that
 * `nextActions` draws its human actions from, so neither can offer what the state machine then refuses;
 * the CLI sends its command and reports the refusal. Pure, and it copies no state, so it is cheap
 * enough for every nextActions call. The property test checks each permission against applyCommand.
 */
export function permittedCommands(state: RolloutState, now: number): PermittedCommands {
  const ok = (c: Record<string, unknown> & { type: Command["type"] }, i?: InstanceState) =>
    refusalOf(state, { ...c, actor: PROBE_ACTOR, key: PROBE_KEY } as Command, now, i) === null;
  const wave = state.currentWave;
  const instances = (type: "step-done" | "revert-done") =>
    state.instances.filter((i) => ok({ type, instance: i.instance }, i)).map((i) => i.instance);
  return {
    approve: wave !== null && ok({ type: "approve", wave }) ? wave : null,
    attestBackup: ok({ type: "attest-backup", takenAt: Math.floor(now) }),
    pause: ok({ type: "pause", reason: "probe" }),
    resume: ok({ type: "resume" }),
    abort: ok({ type: "abort", reason: "probe" }),
    revert: ok({ type: "revert", reason: "probe" }),
    stepDone: instances("step-done"),
    revertDone: instances("revert-done"),
  };
}
