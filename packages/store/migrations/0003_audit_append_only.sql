-- The audit log is append-only: UPDATE, DELETE and TRUNCATE are refused for every role, the owner's too.
CREATE FUNCTION "untorn"."audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'untorn.audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update_delete" BEFORE UPDATE OR DELETE ON "untorn"."audit_log"
  FOR EACH ROW EXECUTE FUNCTION "untorn"."audit_log_append_only"();
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "untorn"."audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "untorn"."audit_log_append_only"();
