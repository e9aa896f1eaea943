/** Local accounts, sessions and the sign-in throttle. */
import { and, asc, desc, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import { NotFoundError } from "../errors.js";
import type { Db } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { apiTokens, authFailures, sessions, users } from "../schema.js";
import {
  authFailureWaitInput,
  createSessionInput,
  createUserInput,
  hashInput,
  idInput,
  type JsonObject,
  parseInput,
  recordAuthFailureInput,
  releaseAuthAttemptInput,
  reserveAuthAttemptInput,
  updateUserInput,
  username as usernameSchema,
} from "../validation.js";
import { AUTH_LOCK_SPACE, type InTx, writeAudit } from "./shared.js";

export type AccountOps = UserOps & ThrottleOps;

/** Local accounts and their sessions. */
type UserOps = Pick<
  StoreOps,
  | "createUser"
  | "getUserByName"
  | "getUser"
  | "listUsers"
  | "countUsers"
  | "updateUser"
  | "createSession"
  | "getSessionUser"
  | "deleteSession"
  | "deleteExpiredSessions"
>;

function userOps(db: Db, inTx: InTx): UserOps {
  return {
    async createUser(input) {
      const v = parseInput("createUser", createUserInput, input);
      return inTx(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({ username: v.username, passwordHash: v.passwordHash, role: v.role })
          .returning();
        const u = row!;
        await writeAudit(tx, v.actor, "user.create", "user", u.username, { role: u.role });
        return u;
      });
    },

    async getUserByName(name) {
      const n = usernameSchema.safeParse(name);
      if (!n.success) return null;
      // Case-insensitive, as the unique index users_username_lower_idx is.
      const [row] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${n.data})`);
      return row ?? null;
    },

    async getUser(userId) {
      const { id: uid } = parseInput("getUser", idInput, { id: userId });
      const [row] = await db.select().from(users).where(eq(users.id, uid));
      return row ?? null;
    },

    async listUsers() {
      return db.select().from(users).orderBy(asc(users.username));
    },

    async countUsers() {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
      return row?.n ?? 0;
    },

    async updateUser(input) {
      const v = parseInput("updateUser", updateUserInput, input);
      return inTx(async (tx) => {
        const [before] = await tx.select().from(users).where(eq(users.id, v.id)).for("update");
        if (!before) throw new NotFoundError("user", v.id);
        const set: Partial<typeof users.$inferInsert> = {};
        const changes: JsonObject = {};
        if (v.role !== undefined && v.role !== before.role) {
          set.role = v.role;
          changes["role"] = { from: before.role, to: v.role };
        }
        if (v.passwordHash !== undefined) {
          set.passwordHash = v.passwordHash;
          changes["password"] = "changed";
        }
        if (v.disabled !== undefined && v.disabled !== (before.disabledAt !== null)) {
          set.disabledAt = v.disabled ? new Date() : null;
          changes["disabled"] = { from: !v.disabled, to: v.disabled };
        }
        if (Object.keys(changes).length === 0) return before;
        const [after] = await tx
          .update(users)
          .set({ ...set, updatedAt: sql`now()` })
          .where(eq(users.id, v.id))
          .returning();
        if (set.passwordHash !== undefined || v.disabled === true) {
          // A new password or disabling ends every session and revokes every API token (re-enabling
          // revives none: the user makes new ones).
          await tx.delete(sessions).where(eq(sessions.userId, v.id));
          const revoked = await tx
            .update(apiTokens)
            .set({ revokedAt: sql`now()` })
            .where(and(eq(apiTokens.userId, v.id), isNull(apiTokens.revokedAt)))
            .returning({ id: apiTokens.id });
          if (revoked.length > 0) changes["apiTokensRevoked"] = revoked.length;
        }
        await writeAudit(tx, v.actor, "user.update", "user", before.username, { changes });
        return after!;
      });
    },

    async createSession(input) {
      const v = parseInput("createSession", createSessionInput, input);
      await db.insert(sessions).values(v);
    },

    async getSessionUser(idHash) {
      const h = hashInput.safeParse({ hash: idHash });
      if (!h.success) return null;
      const [row] = await db
        .select({ user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(eq(sessions.idHash, h.data.hash), gt(sessions.expiresAt, sql`now()`), isNull(users.disabledAt)),
        );
      return row?.user ?? null;
    },

    async deleteSession(idHash) {
      await db.delete(sessions).where(eq(sessions.idHash, idHash));
    },

    async deleteExpiredSessions() {
      const gone = await db.delete(sessions).where(lt(sessions.expiresAt, sql`now()`)).returning();
      return gone.length;
    },
  };
}

/** The sign-in throttle: failures per key, counted atomically before a credential is checked. */
type ThrottleOps = Pick<
  StoreOps,
  "recordAuthFailure" | "authFailureWait" | "clearAuthFailures" | "reserveAuthAttempt" | "releaseAuthAttempt"
>;

function throttleOps(db: Db, inTx: InTx): ThrottleOps {
  return {
    async recordAuthFailure(keys, windowSeconds) {
      const v = parseInput("recordAuthFailure", recordAuthFailureInput, { keys: [...keys], windowSeconds });
      await inTx(async (tx) => {
        await tx.insert(authFailures).values(v.keys.map((key) => ({ key })));
        await tx
          .delete(authFailures)
          .where(lt(authFailures.at, sql`now() - ${v.windowSeconds}::int * interval '1 second'`));
      });
    },

    async authFailureWait(key, max, windowSeconds) {
      const v = parseInput("authFailureWait", authFailureWaitInput, { key, max, windowSeconds });
      const window = sql`${v.windowSeconds}::int * interval '1 second'`;
      const recent = db
        .select({ at: authFailures.at })
        .from(authFailures)
        .where(and(eq(authFailures.key, v.key), gt(authFailures.at, sql`now() - ${window}`)))
        .orderBy(desc(authFailures.at))
        .limit(v.max)
        .as("recent");
      const [row] = await db
        .select({
          n: sql<number>`count(*)::int`,
          wait: sql<number>`coalesce(ceil(extract(epoch from (min(${recent.at}) + ${window} - now())))::int, 0)`,
        })
        .from(recent);
      return row && row.n >= v.max ? Math.max(1, row.wait) : 0;
    },

    async clearAuthFailures(key) {
      await db.delete(authFailures).where(eq(authFailures.key, key));
    },

    async reserveAuthAttempt(limits, windowSeconds) {
      const v = parseInput("reserveAuthAttempt", reserveAuthAttemptInput, {
        limits: limits.map((l) => ({ ...l })),
        windowSeconds,
      });
      const window = sql`${v.windowSeconds}::int * interval '1 second'`;
      // Locks taken in one order (sorted keys), so two attempts sharing keys never deadlock.
      const sorted = [...v.limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return inTx(async (tx) => {
        let wait = 0;
        for (const { key, max } of sorted) {
          await tx.execute(sql`select pg_advisory_xact_lock(${AUTH_LOCK_SPACE}::int, hashtext(${key}))`);
          const recent = tx
            .select({ at: authFailures.at })
            .from(authFailures)
            .where(and(eq(authFailures.key, key), gt(authFailures.at, sql`now() - ${window}`)))
            .orderBy(desc(authFailures.at))
            .limit(max)
            .as("recent");
          const [row] = await tx
            .select({
              n: sql<number>`count(*)::int`,
              wait: sql<number>`coalesce(ceil(extract(epoch from (min(${recent.at}) + ${window} - clock_timestamp())))::int, 0)`,
            })
            .from(recent);
          if (row && row.n >= max) wait = Math.max(wait, Math.max(1, row.wait));
        }
        if (wait > 0) return { reserved: null, wait };
        const rows = await tx
          .insert(authFailures)
          .values(sorted.map(({ key }) => ({ key, at: sql`clock_timestamp()` })))
          .returning({ id: authFailures.id });
        await tx.delete(authFailures).where(lt(authFailures.at, sql`now() - ${window}`));
        return { reserved: rows.map((r) => r.id), wait: 0 as const };
      });
    },

    async releaseAuthAttempt(ids) {
      const v = parseInput("releaseAuthAttempt", releaseAuthAttemptInput, { ids: [...ids] });
      if (v.ids.length > 0) await db.delete(authFailures).where(inArray(authFailures.id, v.ids));
    },
  };
}

export function accountsOps(db: Db, inTx: InTx): AccountOps {
  return {
    ...userOps(db, inTx),
    ...throttleOps(db, inTx),
  };
}
