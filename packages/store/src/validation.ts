/**
 * zod schemas for every store input. Server Actions and the CLI can reuse them for their forms;
 * the store parses again at its boundary, so a caller that skipped validation still can't write junk.
 */

import {
  ACCESS_ROLES,
  CLOUDS,
  MANAGED_SERVICES,
  REPLICATION_ROLES,
  TORN_WRITE_PROVIDERS,
} from "@untorn/vocabulary/words";
import { z } from "zod";
import { StoreValidationError, type ValidationIssue } from "./errors.js";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
export type JsonArray = JsonValue[];

// PostgreSQL text and jsonb can't hold U+0000; reject it here so the error names the field.
const NUL = "\u0000";
function nulPath(v: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof v === "string") return v.includes(NUL) ? path : null;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const p = nulPath(x, [...path, i]);
      if (p) return p;
    }
  } else if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = k.includes(NUL) ? [...path, k] : nulPath(x, [...path, k]);
      if (p) return p;
    }
  }
  return null;
}
const str = () => z.string().refine((s) => !s.includes(NUL), "must not contain NUL (U+0000) characters");
function json<T extends JsonValue>(kind: "value" | "object" | "array"): z.ZodType<T> {
  return z.json().superRefine((v, ctx) => {
    if (kind === "object" && (v === null || typeof v !== "object" || Array.isArray(v))) {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
    } else if (kind === "array" && !Array.isArray(v)) {
      ctx.addIssue({ code: "custom", message: "must be a JSON array" });
    } else {
      const p = nulPath(v, []);
      if (p) ctx.addIssue({ code: "custom", path: p, message: "must not contain NUL (U+0000) characters" });
    }
  }) as unknown as z.ZodType<T>;
}
const jsonValue = json<JsonValue>("value");
const jsonObject = json<JsonObject>("object");
const jsonArray = json<JsonArray>("array");

const KiB = 1024;
const MiB = 1024 * KiB;
const powerOfTwoBytes = (min: number, max: number, d: string) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .refine((n) => (n & (n - 1)) === 0, "must be a power of two")
    .describe(d);
const label = (max: number) => str().trim().min(1, "must not be empty (use null to clear)").max(max);

/** Clouds and torn-write providers: the advisor's InstanceFacts values, so declared facts overlay probed ones. */

/**
 * Storage facts an operator declares because no probe can see them (managed services, cloud
 * volume features, a ZFS dataset the exporter can't read). Every key is optional; absent means
 * "not declared", never "false". Names match the advisor's InstanceFacts fields (platform.* for
 * the first five, storage.* for the rest) so the app can overlay them on probed facts.
 */
export const storageFactsSchema = z
  .object({
    cloud: z.enum(CLOUDS).optional(),
    instanceClass: str().trim().min(1).max(100).optional().describe("e.g. db.r6g.2xlarge, i4i.2xlarge"),
    rdsOptimizedWrites: z
      .enum(["auto", "off"])
      .optional()
      .describe(
        "RDS parameter rds.optimized_writes; not visible from SQL (docs/reference/atomic-storage.md §8.1).",
      ),
    rdsStorageConfigUpgradeNeeded: z
      .boolean()
      .optional()
      .describe(
        "RDS database predates Optimized Writes and needs a Blue/Green storage upgrade (docs/reference/atomic-storage.md §8.1).",
      ),
    alibaba16kAtomicWrite: z
      .boolean()
      .optional()
      .describe("ApsaraDB RDS 16K atomic write is on (docs/reference/atomic-storage.md §8.3)."),
    fsType: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9._-]{1,32}$/, "must be a file system type such as ext4, xfs, zfs")
      .optional(),
    fsBlockSizeBytes: powerOfTwoBytes(512, 64 * KiB, "File system block size.").optional(),
    fsClusterSizeBytes: powerOfTwoBytes(512, 64 * MiB, "ext4 bigalloc cluster size.").optional(),
    zfsRecordsizeBytes: powerOfTwoBytes(
      512,
      16 * MiB,
      "ZFS recordsize of the data files' dataset; 16384 matches the default page size (docs/reference/atomic-storage.md §8.4).",
    ).optional(),
    btrfsNodatacow: z
      .boolean()
      .optional()
      .describe("nodatacow removes btrfs's all-or-nothing writes (docs/reference/atomic-storage.md §8.4)."),
    dataOffsetAlignmentBytes: powerOfTwoBytes(
      512,
      1024 * MiB,
      "Alignment of the data area's start on the disk (partition, LVM); must be a multiple of the page size (docs/reference/atomic-storage.md §8.2).",
    ).optional(),
    tornWriteProtection: z
      .object({
        provider: z.enum(TORN_WRITE_PROVIDERS),
        unitBytes: powerOfTwoBytes(512, 1 * MiB, "Largest aligned write the provider keeps atomic."),
        note: str().max(2000).optional().describe("Where and when it was verified (e.g. nvme id-ns NTWPU)."),
        demoOnly: z
          .boolean()
          .optional()
          .describe(
            "true: declared for a demo or a lab so the doublewrite-OFF path can be walked, not verified on real storage; every page and report that rests on it says so.",
          ),
      })
      .strict()
      .optional()
      .describe(
        "Platform torn-write protection the operator verified (docs/reference/atomic-storage.md §8.1, §8.2, §8.3).",
      ),
    limits: z
      .object({
        metered: z
          .boolean()
          .optional()
          .describe("false: local device without provider IOPS/bandwidth limits."),
        iops: z.number().int().positive().optional(),
        writeIops: z.number().int().positive().optional(),
        bandwidthBytesPerSecond: z.number().int().positive().optional(),
        ioUnitBytes: powerOfTwoBytes(
          512,
          16 * MiB,
          "Largest I/O the provider meters as one operation.",
        ).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type StorageFacts = z.infer<typeof storageFactsSchema>;

const actor = str().trim().min(1, "required: who is doing this").max(200);
const instance = str().trim().min(1, "required: the Prometheus instance label").max(512);
const id = z.uuid();
const limit = z.number().int().min(1).max(1000).default(100);

/**
 * Upsert: omitted fields keep their stored value (or the default on insert), null clears one.
 * `storageFacts` replaces the whole object.
 */
export const upsertInstanceMetadataInput = z
  .object({
    instance,
    cluster: label(200).nullable().optional(),
    role: z.enum(REPLICATION_ROLES).nullable().optional(),
    notes: str().max(10_000).optional(),
    storageClass: label(100).nullable().optional(),
    storageFacts: storageFactsSchema.optional(),
    managedService: z.enum(MANAGED_SERVICES).nullable().optional(),
    actor,
  })
  .strict();
export type UpsertInstanceMetadataInput = z.input<typeof upsertInstanceMetadataInput>;

export const listInstanceMetadataInput = z
  .object({ cluster: str().optional(), role: z.enum(REPLICATION_ROLES).optional() })
  .strict()
  .default({});
export type ListInstanceMetadataInput = z.input<typeof listInstanceMetadataInput>;

export const deleteInstanceMetadataInput = z.object({ instance, actor }).strict();
export type DeleteInstanceMetadataInput = z.input<typeof deleteInstanceMetadataInput>;

const rolloutState = str().trim().min(1, "required").max(64);

/** Removes a rollout with its events, idempotency keys and comparisons (e.g. one a recording loaded). */
export const deleteRolloutInput = z.object({ id, actor }).strict();
export type DeleteRolloutInput = z.input<typeof deleteRolloutInput>;

/** Chosen by the client (a UUID, `ticket-123/approve-wave-2`...); printable ASCII, no spaces. */
export const idempotencyKey = str()
  .min(8, "at least 8 characters, so keys of different commands don't collide")
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

const eventType = str().trim().min(1, "required").max(100);

export const rolloutEventInput = z
  .object({
    type: eventType,
    evidence: jsonObject.optional(),
    /** The event's own time (the reconciler's `now`); default: the commit time. */
    at: z.coerce.date().optional(),
  })
  .strict();
export type RolloutEventInput = z.input<typeof rolloutEventInput>;

export const createRolloutInput = z
  .object({
    /** Default: a random UUID. The rollout core names its rollouts itself. */
    id: id.optional(),
    name: str().trim().min(1, "required").max(200),
    change: jsonObject,
    targets: z
      .array(instance)
      .min(1, "needs at least one target instance")
      .refine((t) => new Set(t).size === t.length, "lists an instance twice"),
    waves: jsonArray,
    state: rolloutState,
    /** The core's rollout state (validated by the caller with @untorn/rollout's schema). */
    document: jsonObject.optional(),
    /** Sent again with the same request: the rollout it created is returned, nothing is written. */
    idempotencyKey: idempotencyKey.optional(),
    /** The rollout's first events (default: one `created` event). */
    events: z.array(rolloutEventInput).min(1).max(10_000).optional(),
    actor,
  })
  .strict();
export type CreateRolloutInput = z.input<typeof createRolloutInput>;

export const commitRolloutInput = z
  .object({
    id,
    expectedVersion: z.number().int().min(1),
    actor,
    /** What was asked, e.g. `approve`; kept with the idempotency key. */
    command: eventType,
    idempotencyKey: idempotencyKey.optional(),
    /** The command's own input; the same key with a different request is refused. */
    request: jsonValue.optional(),
    state: rolloutState,
    document: jsonObject,
    waves: jsonArray.optional(),
    /** Appended in order after the rollout's last event, in the same transaction. */
    events: z.array(rolloutEventInput).max(10_000),
    /** Returned as is to a retry with the same key. */
    outcome: jsonObject.optional(),
    /**
     * The command was refused (by the rollout engine): only its refusal and key are recorded, the
     * status stays. Kept in the audit row's details, so a conflict can tell a refusal from a change.
     */
    refused: z.boolean().optional(),
  })
  .strict();
export type CommitRolloutInput = z.input<typeof commitRolloutInput>;

export const listRolloutsInput = z
  .object({ state: str().optional(), states: z.array(rolloutState).max(100).optional(), limit })
  .strict()
  .default({ limit: 100 });
export type ListRolloutsInput = z.input<typeof listRolloutsInput>;

export const appendRolloutEventInput = z
  .object({ rolloutId: id, action: str().trim().min(1).max(100), details: jsonObject.optional(), actor })
  .strict();
export type AppendRolloutEventInput = z.input<typeof appendRolloutEventInput>;

export const saveComparisonInput = z
  .object({ rolloutId: id.nullable().optional(), input: jsonValue, result: jsonValue, actor })
  .strict();
export type SaveComparisonInput = z.input<typeof saveComparisonInput>;

export const listComparisonsInput = z
  .object({ rolloutId: id.optional(), limit })
  .strict()
  .default({ limit: 100 });
export type ListComparisonsInput = z.input<typeof listComparisonsInput>;

export const auditInput = z
  .object({
    actor,
    action: str().trim().min(1, "required").max(100),
    entity: str().trim().min(1, "required").max(100),
    entityId: str().max(512).nullable().optional(),
    details: jsonObject.optional(),
  })
  .strict();
export type AuditInput = z.input<typeof auditInput>;

export const listAuditInput = z
  .object({
    entity: str().optional(),
    entityId: str().optional(),
    /** Substring of the actor, case-insensitive. */
    actor: str().max(200).optional(),
    /** Action prefix, e.g. `instance-metadata.` or `user.create`. */
    action: str().max(100).optional(),
    /** Entries before this id (paging, newest first). */
    before: z.number().int().min(1).optional(),
    /** Entries at or after this time. */
    from: z.date().optional(),
    /** Entries before this time. */
    to: z.date().optional(),
    limit,
  })
  .strict()
  .default({ limit: 100 });
export type ListAuditInput = z.input<typeof listAuditInput>;

/** Letters, digits and `._@-`: what an SSO or a DBA uses as a login name. */
export const username = str()
  .trim()
  .min(1, "required")
  .max(100, "at most 100 characters")
  .regex(/^[A-Za-z0-9._@-]+$/, "letters, digits and . _ @ - only");
export const accessRole = z.enum(ACCESS_ROLES);

export const createUserInput = z
  .object({ username, passwordHash: str().min(1).max(500), role: accessRole, actor })
  .strict();
export type CreateUserInput = z.input<typeof createUserInput>;

export const updateUserInput = z
  .object({
    id,
    role: accessRole.optional(),
    passwordHash: str().min(1).max(500).optional(),
    disabled: z.boolean().optional(),
    actor,
  })
  .strict();
export type UpdateUserInput = z.input<typeof updateUserInput>;

const sha256Hex = str().regex(/^[0-9a-f]{64}$/, "a sha256 hex digest");

export const createSessionInput = z.object({ idHash: sha256Hex, userId: id, expiresAt: z.date() }).strict();
export type CreateSessionInput = z.input<typeof createSessionInput>;

export const createApiTokenInput = z
  .object({ userId: id, name: str().trim().min(1, "required").max(100), tokenHash: sha256Hex, actor })
  .strict();
export type CreateApiTokenInput = z.input<typeof createApiTokenInput>;

export const hashInput = z.object({ hash: sha256Hex }).strict();

export const expectedVersionInput = z
  .object({ expectedVersion: z.number().int().min(0).optional() })
  .strict();

const throttleKey = z.string().min(1).max(300);
const windowSeconds = z
  .number()
  .int()
  .min(1)
  .max(30 * 86_400);
export const recordAuthFailureInput = z
  .object({ keys: z.array(throttleKey).min(1).max(10), windowSeconds })
  .strict();
export const reserveAuthAttemptInput = z
  .object({
    limits: z
      .array(z.object({ key: throttleKey, max: z.number().int().min(1).max(100_000) }).strict())
      .min(1)
      .max(10),
    windowSeconds,
  })
  .strict();
export const releaseAuthAttemptInput = z.object({ ids: z.array(z.number().int().min(1)).max(10) }).strict();
export const recordTokenUseInput = z
  .object({ uses: z.array(z.object({ id, at: z.date() }).strict()).max(10_000) })
  .strict();
export const authFailureWaitInput = z
  .object({ key: throttleKey, max: z.number().int().min(1).max(100_000), windowSeconds })
  .strict();

export const idInput = z.object({ id }).strict();
export const rolloutIdInput = z.object({ rolloutId: id }).strict();
export const instanceInput = z.object({ instance }).strict();

/** Parses or throws StoreValidationError naming each bad field (`storageFacts.zfsRecordsizeBytes: ...`). */
export function parseInput<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issues: ValidationIssue[] = [];
  for (const issue of r.error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        issues.push({ path: path ? `${path}.${key}` : key, message: "unknown field" });
    } else {
      issues.push({ path, message: issue.message });
    }
  }
  throw new StoreValidationError(operation, issues);
}
