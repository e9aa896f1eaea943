/** Display formatting shared by server and client components: deterministic, locale-independent. */

const trim = (s: string) => (s.includes(".") ? s.replace(/\.?0+$/, "") : s);

/** 3 significant digits, thousands separated: 12345 → "12,345", 0.01234 → "0.0123". */
export function num(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString("en-US");
  if (a >= 100) return trim(x.toFixed(0));
  if (a >= 10) return trim(x.toFixed(1));
  if (a >= 1) return trim(x.toFixed(2));
  return trim(x.toPrecision(2));
}

/** Ratio as a percentage: 0.4567 → "46%", 0.004 → "0.4%". */
export function pct(ratio: number | null | undefined): string {
  if (ratio == null || !Number.isFinite(ratio)) return "–";
  // A share past ×1000 says only that it is huge: never a number like 6.68e+76%.
  if (Math.abs(ratio) > 1000) return "more than 100,000%";
  const p = ratio * 100;
  if (p !== 0 && Math.abs(p) < 1) return `${trim(p.toFixed(1))}%`;
  return `${Math.round(p)}%`;
}

/** Signed percentage range: (0.1, 0.4) → "+10% to +40%"; equal ends → one value. */
export function pctRange(low: number, high: number): string {
  const s = (x: number) => (x > 0 ? "+" : x < 0 ? "−" : "") + pct(Math.abs(x));
  if (Math.abs(high - low) < 0.005) return s(low);
  return `${s(low)} to ${s(high)}`;
}

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;

/** 16384 → "16 KiB". */
export function bytes(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return "–";
  let v = x;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${num(v)} ${BYTE_UNITS[i]}`;
}

/** Seconds to a readable duration: 0.0042 → "4.2 ms". */
export function seconds(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return "–";
  if (x === 0) return "0 s";
  const a = Math.abs(x);
  if (a >= 86_400) return `${num(x / 86_400)} d`;
  if (a >= 3600) return `${num(x / 3600)} h`;
  if (a >= 60) return `${num(x / 60)} min`;
  if (a >= 1) return `${num(x)} s`;
  if (a >= 1e-3) return `${num(x * 1e3)} ms`;
  return `${num(x * 1e6)} µs`;
}

/**
 * A value in one of the advisor's or catalog's units ("ratio", "bytes/s", "seconds", "pages/s"...).
 * Unknown units print the number and the unit as given.
 */
export function withUnit(x: number | null | undefined, unit: string): string {
  if (x == null || !Number.isFinite(x)) return "–";
  switch (unit) {
    case "ratio":
      return pct(x);
    case "bytes":
      return bytes(x);
    case "bytes/s":
      return `${bytes(x)}/s`;
    case "bytes/txn":
    case "bytes/transaction":
      return `${bytes(x)}/txn`;
    case "seconds":
      return seconds(x);
    case "seconds/s":
      return `${num(x)} s/s`;
    case "count":
    case "text":
      return num(x);
    case "bool":
      return x === 1 ? "yes" : x === 0 ? "no" : num(x);
    default:
      return `${num(x)} ${unit}`;
  }
}

/** ISO time without milliseconds, in UTC: "2026-11-21 13:05:12 UTC". */
export function utc(time: number | string | Date): string {
  const d = typeof time === "number" ? new Date(time * 1000) : new Date(time);
  if (Number.isNaN(d.getTime())) return "–";
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

const FLAVOR_NAMES: Readonly<Record<string, string>> = {
  mysql: "MySQL",
  mariadb: "MariaDB",
  percona: "Percona Server",
};

/** "mariadb", "10.11.19-MariaDB-0+deb12u1" → "MariaDB 10.11.19". */
export function serverLabel(flavor: string, version: string): string {
  const v = /^\d+\.\d+\.\d+/.exec(version)?.[0] ?? version;
  return `${FLAVOR_NAMES[flavor] ?? flavor} ${v}`;
}

export function flavorName(flavor: string): string {
  return FLAVOR_NAMES[flavor] ?? flavor;
}

/** A caught value's message, for a banner or a log line (a thrown non-Error as its string). */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
