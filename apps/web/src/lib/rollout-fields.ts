/**
 * The plan editor's and the rollout controls' field names, choices and form state: plain values a
 * client component can import (the parsing, with the engine's schemas, is lib/rollout-form.ts).
 */

/** Changes the editor offers, as the engine's change kinds (custom variables stay with the CLI). */
export const CHANGE_KINDS = [
  ["doublewrite-off", "innodb_doublewrite = OFF"],
  ["doublewrite-on", "innodb_doublewrite = ON (torn-page protection back)"],
  ["doublewrite-detect-only", "innodb_doublewrite = DETECT_ONLY (MySQL 8.0.30+)"],
  ["doublewrite-pages", "innodb_doublewrite_pages = N (MySQL 8.0.20+)"],
  ["flush-method", "innodb_flush_method"],
  ["atomic-storage", "Move to atomic-write storage"],
] as const;
export type ChangeKindField = (typeof CHANGE_KINDS)[number][0];

export const FLUSH_METHODS = [
  "fsync",
  "O_DSYNC",
  "littlesync",
  "nosync",
  "O_DIRECT",
  "O_DIRECT_NO_FSYNC",
] as const;
export const STORAGE_PLATFORMS = [
  ["rds-blue-green", "RDS Blue/Green with Optimized Writes"],
  ["alibaba-16k", "Alibaba 16K atomic write"],
  ["self-managed-migration", "Self-managed migration to a torn-write-safe volume"],
] as const;
export const APPROVALS = [
  ["each-wave", "Every wave waits for an approve"],
  ["first-wave", "Only the first wave waits; later waves start when the previous one passed"],
] as const;

/** The plan editor's values as text, the way a form (or the page's query string) carries them. */
export interface PlanFieldValues {
  readonly kind: string;
  readonly pages: string;
  readonly method: string;
  readonly platform: string;
  readonly title: string;
  readonly maxInstancesPerWave: string;
  readonly maxClusterSharePct: string;
  readonly includePrimaries: boolean;
  readonly requireControl: boolean;
  readonly approval: string;
  readonly bakeMinutes: string;
  readonly warmupMinutes: string;
  readonly maxLagSeconds: string;
  readonly throughputMarginPct: string;
  readonly latencyMarginPct: string;
  readonly minGainPct: string;
  readonly backupTakenAt: string;
  readonly backupNote: string;
}

export const PLAN_DEFAULTS: PlanFieldValues = {
  kind: "doublewrite-off",
  pages: "",
  method: "",
  platform: "",
  title: "",
  maxInstancesPerWave: "2",
  maxClusterSharePct: "50",
  includePrimaries: true,
  requireControl: true,
  approval: "each-wave",
  bakeMinutes: "60",
  warmupMinutes: "10",
  maxLagSeconds: "30",
  throughputMarginPct: "5",
  latencyMarginPct: "10",
  minGainPct: "0",
  backupTakenAt: "",
  backupNote: "",
};

/** What a rollout Server Action returns to its form. */
export interface RolloutFormState {
  readonly status: "idle" | "done" | "error";
  /** Access control refused: 401 not signed in, 403 role too weak. */
  readonly denied?: 401 | 403;
  /** The rollout changed since the form was rendered: reload to act on what is there now. */
  readonly conflict?: boolean;
  readonly message: string;
  readonly fieldErrors: Readonly<Record<string, string>>;
  /** The plan editor's submitted values, echoed on an error so the form shows what was sent. */
  readonly values?: Readonly<Record<string, readonly string[]>>;
}

export const ROLLOUT_IDLE: RolloutFormState = { status: "idle", message: "", fieldErrors: {} };
