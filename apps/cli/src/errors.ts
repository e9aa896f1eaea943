/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  /** Something outside the user's input failed: Prometheus unreachable, a server error, a failed run. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** An input file that does not parse or validate (the message names the field). */
  invalidInput: 3,
  /** The command ran and its verdict is a failure the user asked to be told about (e.g. --fail-on). */
  verdict: 4,
  /**
   * A rollout refused the command (wrong phase, a target whose safety gate is not verified, a reused
   * idempotency key) or changed since the caller read it (version conflict): nothing was changed.
   */
  refused: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error whose message is for the user as is, with the exit code to leave with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Formats zod issues as "path: message" lines, so a bad file names the field and what was expected. */
export function describeIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  max = 10,
): string {
  const lines = issues.slice(0, max).map((i) => {
    const path = i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("") || "(root)";
    return `  ${path.replace(/^\./, "")}: ${i.message}`;
  });
  if (issues.length > max) lines.push(`  … and ${issues.length - max} more`);
  return lines.join("\n");
}
