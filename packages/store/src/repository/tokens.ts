/** API tokens: created, looked up, their use recorded in batches, revoked. */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { apiTokens, users } from "../schema.js";
import { createApiTokenInput, hashInput, idInput, parseInput, recordTokenUseInput } from "../validation.js";
import { type InTx, writeAudit } from "./shared.js";

export type TokenOps = Pick<
  StoreOps,
  "createApiToken" | "getApiTokenUser" | "recordTokenUse" | "listApiTokens" | "revokeApiToken"
>;

export function tokensOps(db: Db, inTx: InTx): TokenOps {
  return {
    async createApiToken(input) {
      const v = parseInput("createApiToken", createApiTokenInput, input);
      return inTx(async (tx) => {
        const [row] = await tx
          .insert(apiTokens)
          .values({ userId: v.userId, name: v.name, tokenHash: v.tokenHash })
          .returning();
        const t = row!;
        await writeAudit(tx, v.actor, "api-token.create", "api_token", t.id, {
          name: t.name,
          userId: t.userId,
        });
        return t;
      });
    },

    async getApiTokenUser(tokenHash) {
      const h = hashInput.safeParse({ hash: tokenHash });
      if (!h.success) return null;
      // A read, no write: the last use is batched (recordTokenUse, from store.ts).
      const [row] = await db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.tokenHash, h.data.hash), isNull(apiTokens.revokedAt)));
      if (!row) return null;
      const [user] = await db
        .select()
        .from(users)
        .where(and(eq(users.id, row.userId), isNull(users.disabledAt)));
      return user ? { user, token: row } : null;
    },

    async recordTokenUse(uses) {
      const v = parseInput("recordTokenUse", recordTokenUseInput, { uses: [...uses] });
      if (v.uses.length === 0) return;
      const values = sql.join(
        v.uses.map((u) => sql`(${u.id}::uuid, ${u.at.toISOString()}::timestamptz)`),
        sql`, `,
      );
      await db.execute(sql`
        UPDATE untorn.api_tokens t SET last_used_at = greatest(coalesce(t.last_used_at, u.at), u.at)
          FROM (VALUES ${values}) AS u(id, at) WHERE t.id = u.id`);
    },

    async listApiTokens(userId) {
      return db
        .select()
        .from(apiTokens)
        .where(userId === undefined ? undefined : eq(apiTokens.userId, userId))
        .orderBy(desc(apiTokens.createdAt));
    },

    async revokeApiToken(tokenId, actor) {
      const { id: tid } = parseInput("revokeApiToken", idInput, { id: tokenId });
      return inTx(async (tx) => {
        const [row] = await tx
          .update(apiTokens)
          .set({ revokedAt: sql`now()` })
          .where(and(eq(apiTokens.id, tid), isNull(apiTokens.revokedAt)))
          .returning();
        if (!row) return false;
        await writeAudit(tx, actor, "api-token.revoke", "api_token", row.id, {
          name: row.name,
          userId: row.userId,
        });
        return true;
      });
    },
  };
}
