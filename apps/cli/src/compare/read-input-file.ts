import { closeSync, openSync, readSync } from "node:fs";
import type { ComparisonInput } from "@untorn/compare/input";
import { InputSyntaxError, readComparisonInput } from "@untorn/compare/read-input";
import { CliError, describeIssues, EXIT } from "../errors.js";

const CHUNK_BYTES = 1 << 20;

/**
 * Reads and validates a comparison input file ("-" = stdin) with the fast reader: the file is read in
 * 1 MiB chunks and the sample arrays go straight into Float64Arrays, so neither the file's text nor
 * its samples as JS numbers are ever held (docs/comparison.md, "Large inputs"). Errors name the file,
 * the field and what was expected, as readJsonFile's.
 */
export async function readComparisonFile(path: string): Promise<ComparisonInput> {
  let result: ReturnType<typeof readComparisonInput>;
  try {
    if (path === "-") {
      // stdin may be a non-blocking pipe or a terminal: take its chunks as they come, hand them over
      // one by one and let each go once read.
      const chunks: (Buffer | undefined)[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      let k = 0;
      result = readComparisonInput(() => {
        if (k >= chunks.length) return null;
        const c = chunks[k]!;
        chunks[k++] = undefined;
        return c;
      });
    } else {
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch (err) {
        throw new CliError(
          `cannot read comparison input file ${path}: ${(err as Error).message}`,
          EXIT.invalidInput,
        );
      }
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      try {
        result = readComparisonInput(() => {
          const n = readSync(fd, buf, 0, buf.length, null);
          return n === 0 ? null : buf.subarray(0, n);
        });
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    if (err instanceof InputSyntaxError)
      throw new CliError(`${path} is not valid JSON: ${err.message}`, EXIT.invalidInput);
    if (err instanceof CliError) throw err;
    throw new CliError(
      `cannot read comparison input file ${path}: ${(err as Error).message}`,
      EXIT.invalidInput,
    );
  }
  if (!result.success) {
    throw new CliError(
      `${path} is not a valid comparison input:\n${describeIssues(result.error.issues)}`,
      EXIT.invalidInput,
    );
  }
  return result.data;
}
