/**
 * The web app's fleet row: @untorn/fleet's one row (row.ts, the CLI prints the same) with which exporters
 * the instance has and whether the row comes from the last good snapshot. With the fleet summary, the
 * zod schemas are the API's documented response shape (docs/schemas/api-fleet.schema.json).
 * @untorn/fleet/row depends on zod and the vocabulary only (of @untorn/fleet/pipeline this module imports
 * a type only), so client code importing this module does not pull the advisor into the browser.
 */
import type { RowsOf } from "@untorn/fleet/pipeline";
import { exporterPresenceSchema, fleetRowSchema as sharedRowSchema } from "@untorn/fleet/row";
import type {
  DoublewriteMode,
  Flavor,
  GAIN_KINDS,
  GateStatus,
  ReplicationRole,
  ShareBasis,
  VerdictKind,
} from "@untorn/vocabulary/words";
import { z } from "zod";

export { type FleetSummary, fleetSummarySchema } from "@untorn/fleet/row";

export const fleetRowSchema = sharedRowSchema
  .extend({
    exporters: exporterPresenceSchema,
    stale: z.boolean().describe("From the last good snapshot while the source is failing."),
  })
  .strict();

export type FleetRow = z.infer<typeof fleetRowSchema>;

const NO_EXPORTER = { untorn: false, mysqldExporter: false };

/** The fleet pipeline's rows (@untorn/fleet/pipeline) with each instance's exporters, not stale. */
export const webRows: RowsOf<FleetRow> = (rows, exporters) =>
  rows.map((r) => ({ ...r, exporters: exporters[r.instance] ?? NO_EXPORTER, stale: false }));

/** The rows marked as coming from the last good snapshot. */
export function staleRows(rows: readonly FleetRow[]): FleetRow[] {
  return rows.map((r) => ({ ...r, stale: true }));
}

/** What the fleet table needs of a row (FleetRow has it all; the browser gets this much, lib/table-rows.ts). */
export interface TableRow {
  readonly rank: number;
  readonly instance: string;
  readonly cluster: string | null;
  readonly role: ReplicationRole | null;
  readonly flavor: Flavor;
  readonly version: string;
  readonly doublewrite: DoublewriteMode | null;
  readonly gate: { readonly status: GateStatus; readonly demoOnly: boolean };
  readonly verdict: VerdictKind;
  readonly confidence: number;
  readonly amplification: number | null;
  readonly dblwrShare: number | null;
  readonly dblwrShareBasis: ShareBasis | null;
  readonly gain: {
    readonly kind: (typeof GAIN_KINDS)[number];
    readonly throughput: { readonly low: number; readonly high: number };
    readonly writeBytesPerTxn: { readonly low: number; readonly high: number } | null;
    readonly blocked: boolean;
  } | null;
  readonly benefit: number;
  /** The summary cards' predicates, so each card's count is the rows its filter (`only`) keeps. */
  readonly canDropDoublewrite: boolean;
  readonly waitingForGate: boolean;
  /** The most severe finding's severity: critical or error is "at risk". */
  readonly worstSeverity: FleetRow["worstSeverity"];
}
