CREATE TABLE "untorn"."rollout_commands" (
	"key" text PRIMARY KEY NOT NULL,
	"rollout_id" uuid NOT NULL,
	"command" text NOT NULL,
	"request_hash" text NOT NULL,
	"actor" text NOT NULL,
	"version" integer NOT NULL,
	"outcome" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "untorn"."rollout_events" ADD COLUMN "sequence" integer;--> statement-breakpoint
UPDATE "untorn"."rollout_events" e SET "sequence" = n.seq FROM (SELECT "id", row_number() OVER (PARTITION BY "rollout_id" ORDER BY "id") AS seq FROM "untorn"."rollout_events") n WHERE e."id" = n."id";--> statement-breakpoint
ALTER TABLE "untorn"."rollout_events" ALTER COLUMN "sequence" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "untorn"."rollouts" ADD COLUMN "document" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "untorn"."rollouts" ADD COLUMN "updated_by" text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE "untorn"."rollouts" SET "updated_by" = "created_by";--> statement-breakpoint
ALTER TABLE "untorn"."rollout_commands" ADD CONSTRAINT "rollout_commands_rollout_id_rollouts_id_fk" FOREIGN KEY ("rollout_id") REFERENCES "untorn"."rollouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rollout_commands_rollout_id_idx" ON "untorn"."rollout_commands" USING btree ("rollout_id");--> statement-breakpoint
CREATE UNIQUE INDEX "rollout_events_sequence_idx" ON "untorn"."rollout_events" USING btree ("rollout_id","sequence");--> statement-breakpoint
CREATE INDEX "rollouts_state_idx" ON "untorn"."rollouts" USING btree ("state");--> statement-breakpoint
ALTER TABLE "untorn"."rollout_events" ADD CONSTRAINT "rollout_events_sequence_check" CHECK ("untorn"."rollout_events"."sequence" >= 1);--> statement-breakpoint
ALTER TABLE "untorn"."rollouts" ADD CONSTRAINT "rollouts_document_check" CHECK (jsonb_typeof("untorn"."rollouts"."document") = 'object');