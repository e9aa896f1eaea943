/** Instance metadata: one row per instance, versioned, every change audited with its from/to. */
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import { MetadataConflictError } from "../errors.js";
import type { Db } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { auditLog, type InstanceMetadata, instanceMetadata } from "../schema.js";
import {
  deleteInstanceMetadataInput,
  expectedVersionInput,
  instanceInput,
  type JsonObject,
  type JsonValue,
  listInstanceMetadataInput,
  parseInput,
  upsertInstanceMetadataInput,
} from "../validation.js";
import { canonical, type InTx, METADATA_FIELDS, writeAudit } from "./shared.js";

export type MetadataOps = Pick<
  StoreOps,
  | "upsertInstanceMetadata"
  | "getInstanceMetadata"
  | "listInstanceMetadata"
  | "instanceMetadataStamp"
  | "deleteInstanceMetadata"
>;

export function metadataOps(db: Db, inTx: InTx): MetadataOps {
  return {
    async upsertInstanceMetadata(input, options = {}) {
      const v = parseInput("upsertInstanceMetadata", upsertInstanceMetadataInput, input);
      const { expectedVersion } = parseInput("upsertInstanceMetadata", expectedVersionInput, options);
      const given: Partial<Pick<typeof instanceMetadata.$inferInsert, (typeof METADATA_FIELDS)[number]>> = {};
      for (const f of METADATA_FIELDS) if (v[f] !== undefined) (given as Record<string, unknown>)[f] = v[f];
      return inTx(async (tx) => {
        // Insert first so two writers racing on a new instance can't both miss it and collide.
        const [created] = await tx
          .insert(instanceMetadata)
          .values({ instance: v.instance, ...given, updatedBy: v.actor })
          .onConflictDoNothing({ target: instanceMetadata.instance })
          .returning();
        if (created) {
          await writeAudit(tx, v.actor, "instance-metadata.create", "instance_metadata", v.instance, {
            values: given as JsonObject,
          });
          return created;
        }
        const [before] = await tx
          .select()
          .from(instanceMetadata)
          .where(eq(instanceMetadata.instance, v.instance))
          .for("update");
        if (!before) throw new Error(`instance_metadata ${v.instance} vanished inside its transaction`);
        if (expectedVersion !== undefined && before.version !== expectedVersion) {
          const [last] = await tx
            .select()
            .from(auditLog)
            .where(and(eq(auditLog.entity, "instance_metadata"), eq(auditLog.entityId, v.instance)))
            .orderBy(desc(auditLog.id))
            .limit(1);
          const d = (last?.details ?? {}) as { changes?: JsonObject; values?: JsonObject };
          const fields = Object.keys(d.changes ?? d.values ?? {});
          throw new MetadataConflictError(
            v.instance,
            expectedVersion,
            before.version,
            before.updatedBy,
            before.updatedAt,
            fields,
          );
        }
        const set: Record<string, unknown> = {};
        const changes: JsonObject = {};
        for (const [field, value] of Object.entries(given)) {
          const old = before[field as keyof InstanceMetadata];
          if (canonical(old) === canonical(value)) continue;
          set[field] = value;
          changes[field] = { from: old as JsonValue, to: value as JsonValue };
        }
        if (Object.keys(set).length === 0) return before;
        const [after] = await tx
          .update(instanceMetadata)
          .set({ ...set, updatedAt: sql`now()`, updatedBy: v.actor, version: before.version + 1 })
          .where(eq(instanceMetadata.instance, v.instance))
          .returning();
        await writeAudit(tx, v.actor, "instance-metadata.update", "instance_metadata", v.instance, {
          changes,
        });
        return after!;
      });
    },

    async getInstanceMetadata(instance) {
      const { instance: i } = parseInput("getInstanceMetadata", instanceInput, { instance });
      const [row] = await db.select().from(instanceMetadata).where(eq(instanceMetadata.instance, i));
      return row ?? null;
    },

    async listInstanceMetadata(filter) {
      const f = parseInput("listInstanceMetadata", listInstanceMetadataInput, filter);
      const where: SQL[] = [];
      if (f.cluster !== undefined) where.push(eq(instanceMetadata.cluster, f.cluster));
      if (f.role !== undefined) where.push(eq(instanceMetadata.role, f.role));
      return db
        .select()
        .from(instanceMetadata)
        .where(and(...where))
        .orderBy(asc(instanceMetadata.instance));
    },

    async instanceMetadataStamp() {
      const [row] = await db
        .select({
          n: sql<number>`count(*)::int`,
          newest: sql<string | null>`max(${instanceMetadata.updatedAt})::text`,
          versions: sql<string | null>`sum(${instanceMetadata.version})::text`,
        })
        .from(instanceMetadata);
      return `${row?.n ?? 0}:${row?.newest ?? ""}:${row?.versions ?? 0}`;
    },

    async deleteInstanceMetadata(input) {
      const v = parseInput("deleteInstanceMetadata", deleteInstanceMetadataInput, input);
      return inTx(async (tx) => {
        const [gone] = await tx
          .delete(instanceMetadata)
          .where(eq(instanceMetadata.instance, v.instance))
          .returning();
        if (!gone) return false;
        const { instance: _i, createdAt: _c, updatedAt: _u, updatedBy: _b, ...values } = gone;
        await writeAudit(tx, v.actor, "instance-metadata.delete", "instance_metadata", v.instance, {
          values: values as JsonObject,
        });
        return true;
      });
    },
  };
}
