import type { Io } from "../io.js";

/** An Io that keeps stdout and stderr in memory, for run(argv, io) in tests. */
export function bufferIo(
  env: NodeJS.ProcessEnv = {} as NodeJS.ProcessEnv,
): Io & { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    isTty: false,
    env,
    stdout: () => out,
    stderr: () => err,
  };
}
