/**
 * CSV as RFC 4180 writes it (CRLF line ends; a cell with a comma, a quote or a line break quoted, quotes
 * doubled), safe to open in a spreadsheet: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is prefixed with `'`, so it is read as text, never as a formula (OWASP, "CSV
 * Injection"). Numbers are written as numbers (a negative number cannot be a formula); null is empty.
 */

export type CsvValue = string | number | boolean | null;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell. */
export function csvCell(value: CsvValue): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return value ? "true" : "false";
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line and one line per row, each ended by CRLF. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [header.map(csvCell).join(",")];
  for (const r of rows) lines.push(r.map(csvCell).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** The response of a CSV download: `text/csv`, an attachment named `filename`, never cached. */
export function csvResponse(body: string, filename: string): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
