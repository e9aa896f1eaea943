export type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function logfmtValue(v: unknown): string {
  const s = v instanceof Error ? v.message : typeof v === "string" ? v : JSON.stringify(v);
  return /[\s="]/.test(s) || s === "" ? JSON.stringify(s) : s;
}

/** logfmt or JSON lines on stderr. Callers never pass credentials. */
export function createLogger(level: Level = "info", format: "logfmt" | "json" = "logfmt"): Logger {
  const write = (lvl: Level, msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const time = new Date().toISOString();
    if (format === "json") {
      process.stderr.write(`${JSON.stringify({ time, level: lvl, msg, ...fields })}\n`);
    } else {
      const extra = Object.entries(fields)
        .map(([k, v]) => `${k}=${logfmtValue(v)}`)
        .join(" ");
      process.stderr.write(`time=${time} level=${lvl} msg=${logfmtValue(msg)}${extra ? ` ${extra}` : ""}\n`);
    }
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
