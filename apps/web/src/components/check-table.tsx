import type { ReactNode } from "react";

/** One row of a CheckTable: its header cell (what was checked) among the other cells. */
export interface CheckRow {
  readonly key: string;
  /** The cells in column order; the one at `headAt` is the row's header (`<th scope="row">`). */
  readonly cells: readonly ReactNode[];
}

/**
 * The table every list of checks shares: the rollout gates' checks (rollout/gate-details.tsx), the
 * advisor's safety gate (gate-section.tsx) and the change report's gate decisions. One markup for the
 * scroll wrapper, the accessible name, the column headers and the row header.
 */
export function CheckTable({
  label,
  columns,
  rows,
  headAt = 0,
}: {
  /** The table's accessible name (a visually hidden caption). */
  label: string;
  columns: readonly string[];
  rows: readonly CheckRow[];
  /** Index of the column that names each row; -1 for none. */
  headAt?: number;
}) {
  return (
    <div className="table-scroll">
      <table className="data">
        <caption className="visually-hidden">{label}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              {r.cells.map((c, i) =>
                i === headAt ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional columns
                  <th key={i} scope="row">
                    {c}
                  </th>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional columns
                  <td key={i}>{c}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
