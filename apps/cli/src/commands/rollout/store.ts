/** The store a rollout subcommand acts on, the runner's dependencies, and their errors as exit codes. */
import { createAnnotator } from "@untorn/rollout-runner/annotations";
import { loadRunnerEnv, RunnerEnvError } from "@untorn/rollout-runner/env";
import {
  RolloutDocumentError,
  RolloutTargetsRefusedError,
  type RunnerDeps,
} from "@untorn/rollout-runner/runner";
import {
  IdempotencyKeyReuseError,
  NotFoundError,
  StoreError,
  StoreValidationError,
  VersionConflictError,
} from "@untorn/store/errors";
import type { Store } from "@untorn/store/store";
import { z } from "zod";
import { CliError, describeIssues, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import { explain } from "../../source.js";
import { openCliStore, type StoreFlags, storeTarget } from "../../store-open.js";
import { clockOf } from "./options.js";

export async function withStore<T>(flags: StoreFlags, io: Io, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openCliStore(storeTarget(flags, io));
  try {
    return await fn(store);
  } catch (e) {
    throw rolloutError(e);
  } finally {
    await store.close();
  }
}

/** The runner's and the store's errors as messages with the CLI's exit codes. */
export function rolloutError(e: unknown): unknown {
  if (e instanceof CliError) return e;
  if (e instanceof VersionConflictError || e instanceof IdempotencyKeyReuseError)
    return new CliError(e.message, EXIT.refused);
  if (e instanceof RolloutTargetsRefusedError) return new CliError(e.message, EXIT.refused);
  if (e instanceof NotFoundError)
    return new CliError(`${e.message}; \`untorn rollout list\` shows the ids`, EXIT.usage);
  if (e instanceof StoreValidationError) return new CliError(e.message, EXIT.invalidInput);
  if (e instanceof RolloutDocumentError) return new CliError(e.message, EXIT.failure);
  if (e instanceof z.ZodError)
    return new CliError(`invalid input:\n${describeIssues(e.issues)}`, EXIT.invalidInput);
  if (e instanceof StoreError) return new CliError(e.message, EXIT.failure);
  return explain(e);
}

export function depsOf(store: Store, flags: { now?: string }, io: Io): RunnerDeps {
  let env: ReturnType<typeof loadRunnerEnv>;
  try {
    env = loadRunnerEnv(io.env);
  } catch (e) {
    if (e instanceof RunnerEnvError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
  const log = (m: string) => io.err(`warning: ${m}\n`);
  return {
    store,
    clock: clockOf(flags),
    annotator: createAnnotator(
      env.GRAFANA_URL
        ? { url: env.GRAFANA_URL, ...(env.GRAFANA_TOKEN ? { token: env.GRAFANA_TOKEN } : {}) }
        : null,
      log,
    ),
    log,
  };
}
