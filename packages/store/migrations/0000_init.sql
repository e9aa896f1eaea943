CREATE SCHEMA "untorn";
--> statement-breakpoint
CREATE TABLE "untorn"."audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "untorn"."audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"entity" text NOT NULL,
	"entity_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "untorn"."comparisons" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rollout_id" uuid,
	"input" jsonb NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "untorn"."instance_metadata" (
	"instance" text PRIMARY KEY NOT NULL,
	"cluster" text,
	"role" text,
	"notes" text DEFAULT '' NOT NULL,
	"storage_class" text,
	"storage_facts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"managed_service" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "instance_metadata_role_check" CHECK ("untorn"."instance_metadata"."role" IN ('primary', 'replica', 'standalone')),
	CONSTRAINT "instance_metadata_managed_service_check" CHECK ("untorn"."instance_metadata"."managed_service" IN ('none', 'rds', 'aurora', 'alibaba-rds', 'other')),
	CONSTRAINT "instance_metadata_storage_facts_check" CHECK (jsonb_typeof("untorn"."instance_metadata"."storage_facts") = 'object')
);
--> statement-breakpoint
CREATE TABLE "untorn"."rollout_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "untorn"."rollout_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"rollout_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "untorn"."rollouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"change" jsonb NOT NULL,
	"targets" jsonb NOT NULL,
	"waves" jsonb NOT NULL,
	"state" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "rollouts_version_check" CHECK ("untorn"."rollouts"."version" >= 1),
	CONSTRAINT "rollouts_change_check" CHECK (jsonb_typeof("untorn"."rollouts"."change") = 'object'),
	CONSTRAINT "rollouts_targets_check" CHECK (jsonb_typeof("untorn"."rollouts"."targets") = 'array'),
	CONSTRAINT "rollouts_waves_check" CHECK (jsonb_typeof("untorn"."rollouts"."waves") = 'array')
);
--> statement-breakpoint
ALTER TABLE "untorn"."comparisons" ADD CONSTRAINT "comparisons_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "untorn"."rollouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "untorn"."rollout_events" ADD CONSTRAINT "rollout_events_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "untorn"."rollouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_entity_idx" ON "untorn"."audit_log" USING btree ("entity","entity_id");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "untorn"."audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "comparisons_rollout_id_idx" ON "untorn"."comparisons" USING btree ("rollout_id");--> statement-breakpoint
CREATE INDEX "comparisons_created_at_idx" ON "untorn"."comparisons" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "instance_metadata_cluster_idx" ON "untorn"."instance_metadata" USING btree ("cluster");--> statement-breakpoint
CREATE INDEX "rollout_events_rollout_id_idx" ON "untorn"."rollout_events" USING btree ("rollout_id","id");--> statement-breakpoint
CREATE INDEX "rollouts_created_at_idx" ON "untorn"."rollouts" USING btree ("created_at");