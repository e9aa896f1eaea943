/** Rollouts, their events, idempotency keys and saved comparisons: each command all or nothing. */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { IdempotencyKeyReuseError, NotFoundError, StoreValidationError } from "../errors.js";
import type { Db } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { comparisons, type Rollout, rolloutCommands, rolloutEvents, rollouts } from "../schema.js";
import {
  appendRolloutEventInput,
  commitRolloutInput,
  createRolloutInput,
  deleteRolloutInput,
  idempotencyKey as idempotencyKeySchema,
  idInput,
  listComparisonsInput,
  listRolloutsInput,
  parseInput,
  rolloutIdInput,
  saveComparisonInput,
} from "../validation.js";
import {
  conflict,
  type InTx,
  lastSequence,
  requestHash,
  rolloutMustExist,
  sqlState,
  UNIQUE_VIOLATION,
  writeAudit,
} from "./shared.js";

export type RolloutOps = RolloutDocumentOps & RolloutCommandOps & ComparisonOps;

/** A rollout's document: created with its plan and first events, read, listed, deleted. */
type RolloutDocumentOps = Pick<StoreOps, "createRollout" | "getRollout" | "listRollouts" | "deleteRollout">;

function rolloutDocuments(db: Db, inTx: InTx): RolloutDocumentOps {
  return {
    async createRollout(input) {
      const v = parseInput("createRollout", createRolloutInput, input);
      // What the caller asked for; the id, document and events are derived (a random id, the time of
      // the attempt), so a retry that drew new ones is still the same request.
      const key = v.idempotencyKey;
      const hash = requestHash("create", null, { name: v.name, change: v.change, targets: v.targets });
      const replay = async (): Promise<Rollout | null> => {
        if (!key) return null;
        const [prior] = await db.select().from(rolloutCommands).where(eq(rolloutCommands.key, key));
        if (!prior) return null;
        if (prior.command !== "create" || prior.requestHash !== hash) {
          throw new IdempotencyKeyReuseError(key, prior.command, prior.rolloutId);
        }
        const [r] = await db.select().from(rollouts).where(eq(rollouts.id, prior.rolloutId));
        return r ?? null;
      };
      const seen = await replay();
      if (seen) return seen;
      try {
        return await inTx(async (tx) => {
          const [row] = await tx
            .insert(rollouts)
            .values({
              ...(v.id === undefined ? {} : { id: v.id }),
              name: v.name,
              change: v.change,
              targets: v.targets,
              waves: v.waves,
              state: v.state,
              document: v.document ?? {},
              createdBy: v.actor,
              updatedBy: v.actor,
            })
            .returning();
          const r = row!;
          await tx.insert(rolloutEvents).values(
            (v.events ?? [{ type: "created", evidence: { state: r.state } }]).map((e, i) => ({
              rolloutId: r.id,
              sequence: i + 1,
              actor: v.actor,
              action: e.type,
              details: e.evidence ?? {},
              ...(e.at === undefined ? {} : { at: e.at }),
            })),
          );
          if (key) {
            await tx.insert(rolloutCommands).values({
              key,
              rolloutId: r.id,
              command: "create",
              requestHash: hash,
              actor: v.actor,
              version: r.version,
              outcome: { rolloutId: r.id },
            });
          }
          await writeAudit(tx, v.actor, "rollout.create", "rollout", r.id, { name: r.name, state: r.state });
          return r;
        });
      } catch (e) {
        // Two creates with one key at once: the loser's insert hit the primary key; answer as a replay.
        if (key && sqlState(e) === UNIQUE_VIOLATION) {
          const r = await replay();
          if (r) return r;
        }
        throw e;
      }
    },

    async getRollout(id) {
      const { id: rid } = parseInput("getRollout", idInput, { id });
      const [row] = await db.select().from(rollouts).where(eq(rollouts.id, rid));
      return row ?? null;
    },

    async listRollouts(filter) {
      const f = parseInput("listRollouts", listRolloutsInput, filter);
      return db
        .select()
        .from(rollouts)
        .where(
          and(
            f.state === undefined ? undefined : eq(rollouts.state, f.state),
            f.states === undefined ? undefined : inArray(rollouts.state, f.states),
          ),
        )
        .orderBy(desc(rollouts.createdAt), desc(rollouts.id))
        .limit(f.limit);
    },

    async deleteRollout(input) {
      const v = parseInput("deleteRollout", deleteRolloutInput, input);
      return inTx(async (tx) => {
        const [cur] = await tx.select().from(rollouts).where(eq(rollouts.id, v.id)).for("update");
        if (!cur) return false;
        await tx.delete(comparisons).where(eq(comparisons.rolloutId, v.id));
        await tx.delete(rolloutCommands).where(eq(rolloutCommands.rolloutId, v.id));
        await tx.delete(rolloutEvents).where(eq(rolloutEvents.rolloutId, v.id));
        await tx.delete(rollouts).where(eq(rollouts.id, v.id));
        await writeAudit(tx, v.actor, "rollout.delete", "rollout", v.id, {
          name: cur.name,
          state: cur.state,
          createdBy: cur.createdBy,
        });
        return true;
      });
    },
  };
}

/** Commands on a rollout (idempotent, versioned) and its event log. */
type RolloutCommandOps = Pick<
  StoreOps,
  "commitRollout" | "getRolloutCommand" | "appendRolloutEvent" | "listRolloutEvents"
>;

function rolloutCommandOps(db: Db, inTx: InTx): RolloutCommandOps {
  return {
    async commitRollout(input) {
      const v = parseInput("commitRollout", commitRolloutInput, input);
      const hash = requestHash(v.command, v.id, v.request ?? null);
      return inTx(async (tx) => {
        const [cur] = await tx.select().from(rollouts).where(eq(rollouts.id, v.id)).for("update");
        if (!cur) throw new NotFoundError("rollout", v.id);
        if (v.idempotencyKey) {
          const [prior] = await tx
            .select()
            .from(rolloutCommands)
            .where(eq(rolloutCommands.key, v.idempotencyKey));
          if (prior) {
            if (prior.rolloutId !== v.id || prior.command !== v.command || prior.requestHash !== hash) {
              throw new IdempotencyKeyReuseError(v.idempotencyKey, prior.command, prior.rolloutId);
            }
            return {
              rollout: cur,
              events: [],
              replayed: true,
              outcome: prior.outcome,
              version: prior.version,
            };
          }
        }
        if (cur.version !== v.expectedVersion) throw await conflict(tx, cur, v.expectedVersion);
        if (v.refused && v.state !== cur.state) {
          throw new StoreValidationError("commitRollout", [
            {
              path: "refused",
              message: `a refused command leaves the status as it is (${cur.state}), but the commit sets ${v.state}`,
            },
          ]);
        }
        const [row] = await tx
          .update(rollouts)
          .set({
            state: v.state,
            document: v.document,
            version: cur.version + 1,
            updatedAt: sql`now()`,
            updatedBy: v.actor,
            ...(v.waves === undefined ? {} : { waves: v.waves }),
          })
          .where(and(eq(rollouts.id, v.id), eq(rollouts.version, v.expectedVersion)))
          .returning();
        const r = row!;
        const first = (await lastSequence(tx, r.id)) + 1;
        const events =
          v.events.length === 0
            ? []
            : await tx
                .insert(rolloutEvents)
                .values(
                  v.events.map((e, i) => ({
                    rolloutId: r.id,
                    sequence: first + i,
                    actor: v.actor,
                    action: e.type,
                    details: e.evidence ?? {},
                    ...(e.at === undefined ? {} : { at: e.at }),
                  })),
                )
                .returning();
        events.sort((a, b) => a.sequence - b.sequence);
        const outcome = v.outcome ?? {};
        if (v.idempotencyKey) {
          await tx.insert(rolloutCommands).values({
            key: v.idempotencyKey,
            rolloutId: r.id,
            command: v.command,
            requestHash: hash,
            actor: v.actor,
            version: r.version,
            outcome,
          });
        }
        await writeAudit(tx, v.actor, `rollout.${v.command}`, "rollout", r.id, {
          from: cur.state,
          to: r.state,
          version: r.version,
          events: events.length,
          ...(v.refused === undefined ? {} : { refused: v.refused }),
        });
        return { rollout: r, events, replayed: false, outcome, version: r.version };
      });
    },

    async getRolloutCommand(key) {
      const k = parseInput("getRolloutCommand", idempotencyKeySchema, key);
      const [row] = await db.select().from(rolloutCommands).where(eq(rolloutCommands.key, k));
      return row ?? null;
    },

    async appendRolloutEvent(input) {
      const v = parseInput("appendRolloutEvent", appendRolloutEventInput, input);
      return inTx(async (tx) => {
        // The row lock orders concurrent appenders, so sequences have no gaps and no duplicates.
        const [cur] = await tx
          .select({ id: rollouts.id })
          .from(rollouts)
          .where(eq(rollouts.id, v.rolloutId))
          .for("update");
        if (!cur) throw new NotFoundError("rollout", v.rolloutId);
        const [row] = await tx
          .insert(rolloutEvents)
          .values({
            rolloutId: v.rolloutId,
            sequence: (await lastSequence(tx, v.rolloutId)) + 1,
            actor: v.actor,
            action: v.action,
            details: v.details ?? {},
          })
          .returning();
        return row!;
      });
    },

    async listRolloutEvents(rolloutId) {
      const { rolloutId: rid } = parseInput("listRolloutEvents", rolloutIdInput, { rolloutId });
      return db
        .select()
        .from(rolloutEvents)
        .where(eq(rolloutEvents.rolloutId, rid))
        .orderBy(asc(rolloutEvents.sequence));
    },
  };
}

/** Saved before/after comparisons. */
type ComparisonOps = Pick<StoreOps, "saveComparison" | "getComparison" | "listComparisons">;

function comparisonOps(db: Db, inTx: InTx): ComparisonOps {
  return {
    async saveComparison(input) {
      const v = parseInput("saveComparison", saveComparisonInput, input);
      return rolloutMustExist(
        v.rolloutId,
        inTx(async (tx) => {
          const [row] = await tx
            .insert(comparisons)
            .values({ rolloutId: v.rolloutId ?? null, input: v.input, result: v.result, createdBy: v.actor })
            .returning();
          const c = row!;
          await writeAudit(tx, v.actor, "comparison.save", "comparison", c.id, { rolloutId: c.rolloutId });
          return c;
        }),
      );
    },

    async getComparison(id) {
      const { id: cid } = parseInput("getComparison", idInput, { id });
      const [row] = await db.select().from(comparisons).where(eq(comparisons.id, cid));
      return row ?? null;
    },

    async listComparisons(filter) {
      const f = parseInput("listComparisons", listComparisonsInput, filter);
      return db
        .select()
        .from(comparisons)
        .where(f.rolloutId === undefined ? undefined : eq(comparisons.rolloutId, f.rolloutId))
        .orderBy(desc(comparisons.createdAt), desc(comparisons.id))
        .limit(f.limit);
    },
  };
}

export function rolloutsOps(db: Db, inTx: InTx): RolloutOps {
  return {
    ...rolloutDocuments(db, inTx),
    ...rolloutCommandOps(db, inTx),
    ...comparisonOps(db, inTx),
  };
}
