-- A hash chain over the audit log (src/audit-chain.ts verifies it): each row gets its place `seq` and
-- the hash of the row before it under one transaction-scoped lock, so concurrent appends stay one chain.
ALTER TABLE "untorn"."audit_log" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "untorn"."audit_log" ADD COLUMN "prev_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "untorn"."audit_log" ADD COLUMN "hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- sha256 (hex) over the previous hash and the row's fields, each as <octets>:<text>; (a null entity_id
-- as -). The timestamp in UTC to the microsecond, details as jsonb's own text form.
CREATE FUNCTION "untorn"."audit_entry_hash"(prev text, seq bigint, id bigint, at timestamptz, actor text,
  action text, entity text, entity_id text, details jsonb) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  fields text[] := ARRAY[seq::text, id::text,
    to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), actor, action, entity];
  msg text := prev;
  f text;
BEGIN
  FOREACH f IN ARRAY fields LOOP
    msg := msg || octet_length(f)::text || ':' || f || ';';
  END LOOP;
  msg := msg || CASE WHEN entity_id IS NULL THEN '-' ELSE octet_length(entity_id)::text || ':' || entity_id || ';' END;
  msg := msg || octet_length(details::text)::text || ':' || details::text || ';';
  RETURN encode(sha256(convert_to(msg, 'UTF8')), 'hex');
END
$$;
--> statement-breakpoint
CREATE FUNCTION "untorn"."audit_log_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  -- One appender at a time until its transaction ends: the next one reads this row as its previous.
  PERFORM pg_advisory_xact_lock(1970173537, 1);
  SELECT l.seq, l.hash INTO last_seq, last_hash FROM "untorn"."audit_log" l ORDER BY l.seq DESC LIMIT 1;
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.hash := "untorn"."audit_entry_hash"(NEW.prev_hash, NEW.seq, NEW.id, NEW.at, NEW.actor, NEW.action,
    NEW.entity, NEW.entity_id, NEW.details);
  RETURN NEW;
END
$$;
--> statement-breakpoint
-- The rows written before this migration join the chain in id order (the append-only trigger is off for
-- this one statement block, in the migration's own transaction).
ALTER TABLE "untorn"."audit_log" DISABLE TRIGGER "audit_log_no_update_delete";--> statement-breakpoint
DO $$
DECLARE
  r record;
  n bigint := 0;
  prev text := repeat('0', 64);
BEGIN
  FOR r IN SELECT * FROM "untorn"."audit_log" ORDER BY id LOOP
    n := n + 1;
    UPDATE "untorn"."audit_log" SET seq = n, prev_hash = prev,
      hash = "untorn"."audit_entry_hash"(prev, n, r.id, r.at, r.actor, r.action, r.entity, r.entity_id, r.details)
      WHERE id = r.id RETURNING hash INTO prev;
  END LOOP;
END
$$;
--> statement-breakpoint
ALTER TABLE "untorn"."audit_log" ENABLE TRIGGER "audit_log_no_update_delete";--> statement-breakpoint
CREATE TRIGGER "audit_log_chain" BEFORE INSERT ON "untorn"."audit_log"
  FOR EACH ROW EXECUTE FUNCTION "untorn"."audit_log_chain"();--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_seq_idx" ON "untorn"."audit_log" USING btree ("seq");--> statement-breakpoint
-- Names that differ only by case are one account. A store made before that rule may hold such names
-- (Carol and carol): in each group the oldest account (created_at, then id) keeps its name; every other
-- one is renamed <name>~<n> (n = 2, 3, ... in that order, skipping a name taken; `~` is a character no
-- new account may use), disabled, its sessions ended and its API tokens revoked, each as a user.update
-- entry in the audit log. An admin re-enables whichever of them is a real person.
DO $$
DECLARE
  r record;
  n int;
  renamed text;
BEGIN
  FOR r IN
    SELECT u.id, u.username, u.disabled_at,
           row_number() OVER (PARTITION BY lower(u.username) ORDER BY u.created_at, u.id) AS place
      FROM "untorn"."users" u
     WHERE lower(u.username) IN (SELECT lower(username) FROM "untorn"."users" GROUP BY 1 HAVING count(*) > 1)
     ORDER BY lower(u.username), place
  LOOP
    CONTINUE WHEN r.place = 1;
    n := r.place;
    LOOP
      renamed := r.username || '~' || n;
      EXIT WHEN NOT EXISTS (SELECT 1 FROM "untorn"."users" WHERE lower(username) = lower(renamed));
      n := n + 1;
    END LOOP;
    UPDATE "untorn"."users" SET username = renamed, disabled_at = coalesce(disabled_at, now()), updated_at = now()
      WHERE id = r.id;
    DELETE FROM "untorn"."sessions" WHERE user_id = r.id;
    UPDATE "untorn"."api_tokens" SET revoked_at = now() WHERE user_id = r.id AND revoked_at IS NULL;
    INSERT INTO "untorn"."audit_log" (actor, action, entity, entity_id, details)
    VALUES ('store migration 0005', 'user.update', 'user', renamed, jsonb_build_object(
      'changes', jsonb_build_object(
        'username', jsonb_build_object('from', r.username, 'to', renamed),
        'disabled', jsonb_build_object('from', r.disabled_at IS NOT NULL, 'to', true)),
      'reason', 'another account differs from this name only by case (usernames are case-insensitive)'));
  END LOOP;
END
$$;
--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_lower_idx" ON "untorn"."users" USING btree (lower("username"));
