/**
 * The fleet table's rows as the browser receives them: one array per row, numbers rounded to what the
 * table shows, no tooltips. 10,000 rows cost about a fifth of the bytes (and of the parse and
 * hydration time) of the API's row objects. encodeRows runs on the server, decodeRows in the browser.
 */
import type { FleetRow, TableRow } from "./fleet-row.js";

export type { TableRow } from "./fleet-row.js";

type Cell = string | number | boolean | null;
export type EncodedRow = readonly Cell[];

const round = (x: number | null, digits: number) => (x === null ? null : Number(x.toFixed(digits)));

export function toTableRow(r: FleetRow): TableRow {
  return {
    rank: r.rank,
    instance: r.instance,
    cluster: r.cluster,
    role: r.role,
    flavor: r.flavor,
    version: r.version,
    doublewrite: r.doublewrite,
    gate: { status: r.gate.status, demoOnly: r.gate.demoOnly },
    verdict: r.verdict,
    confidence: r.confidence,
    amplification: r.amplification,
    dblwrShare: r.dblwrShare,
    dblwrShareBasis: r.dblwrShareBasis,
    gain: r.gain
      ? {
          kind: r.gain.kind,
          throughput: r.gain.throughput,
          writeBytesPerTxn: r.gain.writeBytesPerTxn,
          blocked: r.gain.blocked,
        }
      : null,
    benefit: r.benefit,
    canDropDoublewrite: r.canDropDoublewrite,
    waitingForGate: r.waitingForGate,
    worstSeverity: r.worstSeverity,
  };
}

export function encodeRow(r: FleetRow | TableRow): EncodedRow {
  const g = r.gain;
  return [
    r.rank,
    r.instance,
    r.cluster,
    r.role,
    r.flavor,
    // The table shows major.minor.patch; the rest of @@version stays on the instance page.
    /^\d+\.\d+\.\d+/.exec(r.version)?.[0] ?? r.version,
    r.doublewrite,
    r.gate.status,
    r.verdict,
    round(r.confidence, 2),
    round(r.amplification, 3),
    round(r.dblwrShare, 4),
    r.dblwrShareBasis,
    g ? g.kind : null,
    g ? round(g.throughput.low, 3) : null,
    g ? round(g.throughput.high, 3) : null,
    g?.writeBytesPerTxn ? round(g.writeBytesPerTxn.low, 3) : null,
    g?.writeBytesPerTxn ? round(g.writeBytesPerTxn.high, 3) : null,
    g ? g.blocked : null,
    round(r.benefit, 4),
    r.canDropDoublewrite,
    r.waitingForGate,
    r.worstSeverity,
    r.gate.demoOnly,
  ];
}

export function decodeRow(c: EncodedRow): TableRow {
  const n = (i: number) => c[i] as number | null;
  return {
    rank: c[0] as number,
    instance: c[1] as string,
    cluster: c[2] as string | null,
    role: c[3] as TableRow["role"],
    flavor: c[4] as TableRow["flavor"],
    version: c[5] as string,
    doublewrite: c[6] as TableRow["doublewrite"],
    gate: { status: c[7] as TableRow["gate"]["status"], demoOnly: c[23] === true },
    verdict: c[8] as TableRow["verdict"],
    confidence: c[9] as number,
    amplification: n(10),
    dblwrShare: n(11),
    dblwrShareBasis: c[12] as TableRow["dblwrShareBasis"],
    gain:
      c[13] === null
        ? null
        : {
            kind: c[13] as NonNullable<TableRow["gain"]>["kind"],
            throughput: { low: c[14] as number, high: c[15] as number },
            writeBytesPerTxn: c[16] === null ? null : { low: c[16] as number, high: c[17] as number },
            blocked: c[18] as boolean,
          },
    benefit: c[19] as number,
    canDropDoublewrite: c[20] as boolean,
    waitingForGate: c[21] as boolean,
    worstSeverity: c[22] as TableRow["worstSeverity"],
  };
}

export const encodeRows = (rows: readonly (FleetRow | TableRow)[]): EncodedRow[] => rows.map(encodeRow);
export const decodeRows = (rows: readonly EncodedRow[]): TableRow[] => rows.map(decodeRow);
