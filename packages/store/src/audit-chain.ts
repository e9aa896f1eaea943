/**
 * The audit log's hash chain, checked from outside the database: every row's hash is recomputed here
 * from its fields (never by the database's own function, which whoever rewrote rows could have
 * replaced too) and must equal the stored one, and each row's prev_hash must be the hash of the row
 * before it, seq 1, 2, 3 ... without a gap. Rows are written by the trigger of migration 0005, whose
 * untorn.audit_entry_hash() computes the same digest.
 *
 * What it detects: a row changed, deleted or inserted anywhere but at the end, by anyone, superuser
 * included. What it cannot: a rewrite that recomputes every hash after the change, or rows cut off the
 * end; compare the head it reports with one recorded elsewhere (`untorn audit verify` prints it).
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "./migrate.js";

export const GENESIS_HASH = "0".repeat(64);

export interface ChainFields {
  seq: number;
  id: number;
  /** UTC, microseconds: `2026-12-01T21:09:37.123456Z`. */
  at: string;
  actor: string;
  action: string;
  entity: string;
  entityId: string | null;
  /** jsonb's text form, as PostgreSQL prints it. */
  details: string;
}

const part = (s: string) => `${Buffer.byteLength(s, "utf8")}:${s};`;

/** sha256 hex of `prev` and the row, as untorn.audit_entry_hash() computes it. */
export function entryHash(prev: string, f: ChainFields): string {
  const msg =
    prev +
    [String(f.seq), String(f.id), f.at, f.actor, f.action, f.entity].map(part).join("") +
    (f.entityId === null ? "-" : part(f.entityId)) +
    part(f.details);
  return createHash("sha256").update(msg, "utf8").digest("hex");
}

export type AuditVerification =
  | { ok: true; entries: number; head: string | null }
  | {
      ok: false;
      /** Entries whose links held before the broken one. */
      entries: number;
      /** The chain position (seq) of the first entry that does not link, and its id. */
      brokenAt: number;
      id: number | null;
      reason: string;
    };

interface Row {
  seq: string | number;
  id: string | number;
  at: string;
  actor: string;
  action: string;
  entity: string;
  entity_id: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

const PAGE = 2000;

/** Walks the whole chain in seq order, a page at a time; stops at the first broken link. */
export async function verifyAuditChain(db: Db): Promise<AuditVerification> {
  let prev = GENESIS_HASH;
  let expected = 1;
  for (;;) {
    const r = (await db.execute(sql`
      SELECT seq, id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, actor, action,
             entity, entity_id, details::text AS details, prev_hash, hash
        FROM untorn.audit_log WHERE seq >= ${expected} ORDER BY seq LIMIT ${PAGE}`)) as unknown as {
      rows: Row[];
    };
    for (const row of r.rows) {
      const seq = Number(row.seq);
      const id = Number(row.id);
      const broken = (reason: string): AuditVerification => ({
        ok: false,
        entries: expected - 1,
        brokenAt: seq === expected ? seq : expected,
        id: seq === expected ? id : null,
        reason,
      });
      if (seq !== expected) return broken(`entry ${expected} is missing (the next one is ${seq})`);
      if (row.prev_hash !== prev)
        return broken(`entry ${seq} (id ${id}) does not link to entry ${seq - 1}: its prev_hash differs`);
      const fields: ChainFields = {
        seq,
        id,
        at: row.at,
        actor: row.actor,
        action: row.action,
        entity: row.entity,
        entityId: row.entity_id,
        details: row.details,
      };
      if (entryHash(prev, fields) !== row.hash)
        return broken(`entry ${seq} (id ${id}) was changed after it was written: its hash does not match`);
      prev = row.hash;
      expected++;
    }
    if (r.rows.length < PAGE) break;
  }
  return { ok: true, entries: expected - 1, head: expected === 1 ? null : prev };
}
