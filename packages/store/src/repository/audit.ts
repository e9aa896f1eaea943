/** The audit log: append, list, verify its hash chain. */
import { and, desc, eq, gte, ilike, like, lt, type SQL } from "drizzle-orm";
import { verifyAuditChain } from "../audit-chain.js";
import type { Db } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { auditLog } from "../schema.js";
import { auditInput, listAuditInput, parseInput } from "../validation.js";
import { escapeLike, writeAudit } from "./shared.js";

export type AuditOps = Pick<StoreOps, "audit" | "listAudit" | "verifyAudit">;

export function auditOps(db: Db): AuditOps {
  return {
    async audit(input) {
      const v = parseInput("audit", auditInput, input);
      return writeAudit(db, v.actor, v.action, v.entity, v.entityId ?? null, v.details ?? {});
    },

    async listAudit(filter) {
      const f = parseInput("listAudit", listAuditInput, filter);
      const where: SQL[] = [];
      if (f.entity !== undefined) where.push(eq(auditLog.entity, f.entity));
      if (f.entityId !== undefined) where.push(eq(auditLog.entityId, f.entityId));
      if (f.actor !== undefined) where.push(ilike(auditLog.actor, `%${escapeLike(f.actor)}%`));
      if (f.action !== undefined) where.push(like(auditLog.action, `${escapeLike(f.action)}%`));
      if (f.before !== undefined) where.push(lt(auditLog.id, f.before));
      if (f.from !== undefined) where.push(gte(auditLog.at, f.from));
      if (f.to !== undefined) where.push(lt(auditLog.at, f.to));
      return db
        .select()
        .from(auditLog)
        .where(and(...where))
        .orderBy(desc(auditLog.id))
        .limit(f.limit);
    },

    async verifyAudit() {
      return verifyAuditChain(db);
    },
  };
}
