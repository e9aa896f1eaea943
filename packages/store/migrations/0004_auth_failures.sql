CREATE TABLE "untorn"."auth_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "untorn"."auth_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "auth_failures_key_at_idx" ON "untorn"."auth_failures" USING btree ("key","at");--> statement-breakpoint
CREATE INDEX "auth_failures_at_idx" ON "untorn"."auth_failures" USING btree ("at");