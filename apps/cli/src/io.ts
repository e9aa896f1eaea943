import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { CliError, describeIssues, EXIT } from "./errors.js";

/** Writes to stdout/stderr; swapped for buffers in tests. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress redraws in place) or a log (one line per step). */
  isTty: boolean;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  isTty: Boolean(process.stderr.isTTY),
  // biome-ignore lint/style/noProcessEnv: the CLI's one injection point of the environment; commands read io.env (settings through env.ts)
  env: process.env,
};

/** Reads and validates a JSON file ("-" = stdin); errors name the file, the field and what was expected. */
export async function readJsonFile<T>(path: string, schema: z.ZodType<T>, what: string): Promise<T> {
  let text: string;
  try {
    text = path === "-" ? await readStdin() : await readFile(path, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${what} file ${path}: ${(err as Error).message}`, EXIT.invalidInput);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${path} is not valid JSON: ${(err as Error).message}`, EXIT.invalidInput);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new CliError(
      `${path} is not a valid ${what}:\n${describeIssues(parsed.error.issues)}`,
      EXIT.invalidInput,
    );
  }
  return parsed.data;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Renders rows as an aligned text table; numbers right-aligned. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === "number" ? formatNumber(c) : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === "number"));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n") + "\n";
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 0.01 || abs >= 1e6)) return n.toExponential(2);
  return Number.isInteger(n) ? String(n) : n.toFixed(abs < 10 ? 2 : 1);
}
