/**
 * JSON Schemas of the CLI's own inputs and outputs (docs/schemas/), as pure functions of the zod schemas:
 * `advise --facts` (one InstanceFacts or an array of them), the fleet table's row and summary that
 * `fleet --json` and `advise --json` print (@untorn/fleet/row), the whole `fleet --json` and `advise --json` outputs, the rollout inputs and outputs of
 * @untorn/rollout, `rollout reconcile --hooks` and the recorded rollouts a lab recording ships.
 * scripts/gen-schemas.ts writes them; schemas.test.ts fails when the committed copies are stale.
 */
import { fleetSummarySchema, rankedFleetRowSchema } from "@untorn/fleet/row";
import { ROLLOUT_SCHEMAS } from "@untorn/rollout/json-schema";
import { recordedRolloutsFileSchema } from "@untorn/rollout-runner/recorded";
import { hooksFileSchema } from "@untorn/rollout-runner/runner";
import { z } from "zod";
import { adviseOutputSchema } from "./commands/advise-output.js";
import { fleetOutputSchema } from "./commands/fleet-output.js";

/** A schema nested under $defs: the dialect is the document's. */
function withoutDialect(s: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...rest } = s;
  return rest;
}

export const CLI_SCHEMAS = {
  "advise-input.schema.json": () => ({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "advise-input.schema.json",
    title: "untorn advise --facts",
    description:
      "One InstanceFacts object (instance-facts.schema.json), or a non-empty array of them for several instances at once.",
    oneOf: [
      { $ref: "instance-facts.schema.json" },
      { type: "array", minItems: 1, items: { $ref: "instance-facts.schema.json" } },
    ],
  }),
  "fleet-row.schema.json": () => ({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "fleet-row.schema.json",
    title: "untorn fleet --json: rows[] and summary",
    description:
      "One element of `rows` in the output of `untorn fleet --json` and `untorn advise --json` (an array of facts): the fleet table's row the web app shows too (api-fleet.schema.json, there with exporters and stale), with the advisor ranking's detail. $defs.summary is the output's `summary`.",
    ...(z.toJSONSchema(rankedFleetRowSchema, { target: "draft-2020-12" }) as Record<string, unknown>),
    $defs: { summary: withoutDialect(z.toJSONSchema(fleetSummarySchema, { target: "draft-2020-12" })) },
  }),
  "cli-fleet.schema.json": () => ({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "cli-fleet.schema.json",
    title: "untorn fleet --json",
    description:
      "What `untorn fleet --json` prints: the fleet table's rows and summary (fleet-row.schema.json) with where the data came from, the request count, whether the recording rules were read, the at-risk instances, the verdict counts, and what could not be used (skipped instances, missing facts).",
    ...withoutDialect(
      z.toJSONSchema(fleetOutputSchema, { target: "draft-2020-12" }) as Record<string, unknown>,
    ),
  }),
  "cli-advise.schema.json": () => ({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "cli-advise.schema.json",
    title: "untorn advise --json",
    description:
      "What `untorn advise --json` prints: for one InstanceFacts object, its advice (profile, write-bound verdict with evidence, findings, safety gate, input warnings); for an array, the fleet table's rows and summary (fleet-row.schema.json), the at-risk instances, the verdict counts, every instance's advice and the instances the advisor failed on.",
    ...withoutDialect(
      z.toJSONSchema(adviseOutputSchema, { target: "draft-2020-12" }) as Record<string, unknown>,
    ),
  }),
  ...ROLLOUT_SCHEMAS,
  "rollout-hooks.schema.json": () => ({
    ...(z.toJSONSchema(hooksFileSchema, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>),
    $id: "rollout-hooks.schema.json",
    title: "untorn rollout reconcile --hooks",
    description:
      "Step hooks by name: a rollout whose policy says applier { kind: hook, hook: <name> } has each step carried out by this webhook or command, its output kept in the audit, then verified from metrics.",
  }),
  "recorded-rollouts.schema.json": () => ({
    ...(z.toJSONSchema(recordedRolloutsFileSchema, { target: "draft-2020-12", io: "input" }) as Record<
      string,
      unknown
    >),
    $id: "recorded-rollouts.schema.json",
    title: "Recorded rollouts (lab/recordings/<name>.rollouts.json)",
    description:
      "The rollouts a lab recording ran, as the store held them at the end of the run (documents, events with their evidence, comparisons), exported beside the replay; the web app loads them into its store when it serves the recording.",
  }),
} as const;

export type CliSchemaFile = keyof typeof CLI_SCHEMAS;

/** The file's exact text (2-space JSON, trailing newline). */
export function renderCliSchema(name: CliSchemaFile): string {
  return `${JSON.stringify(CLI_SCHEMAS[name](), null, 2)}\n`;
}
