/** What `plan` and `create` roll out: --input, or --change/--targets/--policy and the source's facts. */
import { readFile } from "node:fs/promises";
import type { InstanceFacts } from "@untorn/advisor/facts";
import { type Change, changeSchema } from "@untorn/rollout/change";
import { type PlanInputJson, planInputSchema } from "@untorn/rollout/plan";
import { policySchema } from "@untorn/rollout/policy";
import { candidateFacts } from "@untorn/rollout-runner/observe";
import { CliError, describeIssues, EXIT } from "../../errors.js";
import { type Io, readJsonFile } from "../../io.js";
import { readMetadata } from "../../metadata.js";
import { explain, openSource, type Source, type SourceFlags } from "../../source.js";

/** `--change` is inline JSON or @file. */
async function readChange(text: string): Promise<Change> {
  let raw = text;
  if (text.startsWith("@")) {
    try {
      raw = await readFile(text.slice(1), "utf8");
    } catch (e) {
      throw new CliError(
        `cannot read --change file ${text.slice(1)}: ${(e as Error).message}`,
        EXIT.invalidInput,
      );
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    // A bare kind such as doublewrite-off.
    data = { kind: raw.trim() };
  }
  const r = changeSchema.safeParse(data);
  if (!r.success)
    throw new CliError(
      `--change ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} is not a valid change (rollout-plan-input.schema.json, property change):\n${describeIssues(r.error.issues)}`,
      EXIT.invalidInput,
    );
  return r.data;
}

function parseTargets(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const list = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0)
    throw new CliError("--targets: expected a comma-separated list of instance labels", EXIT.usage);
  if (new Set(list).size !== list.length) throw new CliError("--targets lists an instance twice", EXIT.usage);
  return list;
}

export interface PlanFlags extends SourceFlags {
  input?: string;
  change?: string;
  targets?: string;
  policy?: string;
  metadata?: string;
  json?: boolean;
}

/** The plan input from --input, or from --change/--targets/--policy and the facts the source serves. */
export async function planInput(
  flags: PlanFlags,
  io: Io,
): Promise<{ input: PlanInputJson; at: number; warnings: string[]; source: Source | null }> {
  if (flags.input !== undefined) {
    if (flags.change !== undefined || flags.targets !== undefined || flags.policy !== undefined)
      throw new CliError("give either --input <file> or --change/--targets/--policy, not both", EXIT.usage);
    const input = await readJsonFile(
      flags.input,
      planInputSchema,
      "rollout plan input (rollout-plan-input.schema.json)",
    );
    return { input: input as PlanInputJson, at: Date.now() / 1000, warnings: [], source: null };
  }
  if (flags.change === undefined)
    throw new CliError(
      "what to roll out? pass --change <json|@file|kind> (e.g. --change doublewrite-off) or --input <file>",
      EXIT.usage,
    );
  const change = await readChange(flags.change);
  const targets = parseTargets(flags.targets);
  const policy =
    flags.policy === undefined ? {} : await readJsonFile(flags.policy, policySchema, "rollout policy");
  const metadata = await readMetadata(flags.metadata);
  const source = await openSource(flags, io);
  const at = source.facts.at ?? Math.floor(Date.now() / 1000);
  let facts: { facts: InstanceFacts[]; warnings: string[] };
  try {
    const { at: _at, selector: _selector, onProgress: _p, onAdvising: _a, ...factsOptions } = source.facts;
    facts = await candidateFacts(source.api, {
      at,
      window: source.facts.window,
      // A replay answers its own query texts only: the recording's step, statistics and source.
      factsOptions,
      ...(source.facts.selector ? { selector: source.facts.selector } : {}),
      ...(metadata ? { metadata } : {}),
    });
  } catch (e) {
    throw explain(e, source);
  }
  if (facts.facts.length === 0)
    throw new CliError(
      `no MySQL/MariaDB instances with facts found ${source.url ? `at ${source.url}` : `in ${source.replay?.file}`}: nothing to plan`,
      EXIT.failure,
    );
  const known = new Set(facts.facts.map((f) => f.identity.instance));
  const unknown = (targets ?? []).filter((t) => !known.has(t));
  if (unknown.length)
    throw new CliError(
      `--targets: no facts for ${unknown.join(", ")} (known: ${[...known].join(", ")})`,
      EXIT.usage,
    );
  return {
    input: { change, instances: facts.facts, ...(targets ? { targets } : {}), policy },
    at,
    warnings: facts.warnings,
    source,
  };
}
