/** A small, dependency-free SVG line chart: categorical x (thread counts), linear y from 0, whiskers. */
import type { BenchResult } from "./result.js";

export interface ChartPoint {
  x: number;
  y: number;
  /** Whisker (e.g. min and max over repeats). */
  low?: number;
  high?: number;
}

export interface ChartSeries {
  name: string;
  color: string;
  /** Dashed line. */
  dashed?: boolean;
  points: ChartPoint[];
}

export interface ChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  width?: number;
  height?: number;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Tick step of 1, 2 or 5 × 10^k giving about `count` ticks up to `max`. */
export function niceStep(max: number, count = 5): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Cuts text to about the width available (average glyph width in px; no font metrics without a DOM). */
function fit(text: string, width: number, glyph: number): string {
  const max = Math.floor((width - 24) / glyph);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 1 ? 2 : 1));

export function lineChartSvg(spec: ChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 420;
  const m = { top: spec.subtitle ? 64 : 48, right: 24, bottom: 56, left: 72 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const xs = [...new Set(spec.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const yMaxData = Math.max(
    0,
    ...spec.series.flatMap((s) => s.points.map((p) => Math.max(p.y, p.high ?? p.y))),
  );
  const step = niceStep(yMaxData);
  const yMax = Math.max(step, Math.ceil(yMaxData / step) * step);
  // Categories centred in equal slots, so the first and last points stay off the axes.
  const xPos = (x: number) => m.left + ((xs.indexOf(x) + 0.5) / Math.max(xs.length, 1)) * plotW;
  const yPos = (y: number) => m.top + plotH - (y / yMax) * plotH;
  const r = (v: number) => Math.round(v * 10) / 10;

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(fit(spec.title, width, 9))}</text>`,
  ];
  if (spec.subtitle) {
    out.push(
      `<text x="${width / 2}" y="44" text-anchor="middle" fill="#555555">${escapeXml(fit(spec.subtitle, width, 6.6))}</text>`,
    );
  }
  for (let y = 0; y <= yMax + step / 2; y += step) {
    out.push(
      `<line x1="${m.left}" x2="${m.left + plotW}" y1="${r(yPos(y))}" y2="${r(yPos(y))}" stroke="#e5e5e5"/>`,
      `<text x="${m.left - 8}" y="${r(yPos(y)) + 4}" text-anchor="end">${fmt(y)}</text>`,
    );
  }
  out.push(
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + plotH}" stroke="#333333"/>`,
    `<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="#333333"/>`,
  );
  for (const x of xs) {
    out.push(`<text x="${r(xPos(x))}" y="${m.top + plotH + 18}" text-anchor="middle">${fmt(x)}</text>`);
  }
  out.push(
    `<text x="${m.left + plotW / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
    `<text transform="translate(18 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  for (const s of spec.series) {
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    if (pts.length > 1) {
      out.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ""} points="${pts.map((p) => `${r(xPos(p.x))},${r(yPos(p.y))}`).join(" ")}"/>`,
      );
    }
    for (const p of pts) {
      const cx = r(xPos(p.x));
      if (p.low !== undefined && p.high !== undefined) {
        out.push(
          `<line x1="${cx}" x2="${cx}" y1="${r(yPos(p.low))}" y2="${r(yPos(p.high))}" stroke="${s.color}"/>`,
          `<line x1="${cx - 4}" x2="${cx + 4}" y1="${r(yPos(p.low))}" y2="${r(yPos(p.low))}" stroke="${s.color}"/>`,
          `<line x1="${cx - 4}" x2="${cx + 4}" y1="${r(yPos(p.high))}" y2="${r(yPos(p.high))}" stroke="${s.color}"/>`,
        );
      }
      out.push(
        `<circle cx="${cx}" cy="${r(yPos(p.y))}" r="3.5" fill="${s.color}"><title>${escapeXml(`${s.name}: ${fmt(p.x)} → ${fmt(r(p.y))}`)}</title></circle>`,
      );
    }
  }
  spec.series.forEach((s, i) => {
    const lx = m.left + 12;
    const ly = m.top + 12 + i * 18;
    out.push(
      `<line x1="${lx}" x2="${lx + 20}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ""}/>`,
      `<text x="${lx + 26}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** TPS vs threads, doublewrite ON and OFF: medians with min–max whiskers over the repeats. */
export function benchChart(r: BenchResult): string {
  const series: ChartSeries[] = [];
  for (const [setting, name, color, dashed] of [
    ["on", "doublewrite ON", "#c0392b", false],
    ["off", "doublewrite OFF", "#2471a3", true],
  ] as const) {
    const points = r.summary.flatMap((row) => {
      const t = (setting === "on" ? row.on : row.off)?.metrics.tps;
      return t ? [{ x: row.threads, y: t.median, low: t.min, high: t.max }] : [];
    });
    if (points.length) series.push({ name, color, dashed, points });
  }
  return lineChartSvg({
    title: "Doublewrite ON vs OFF: sysbench oltp_write_only",
    subtitle: chartSubtitle(r),
    xLabel: "threads",
    yLabel: "transactions/s (median, min–max)",
    series,
  });
}

function chartSubtitle(r: BenchResult): string {
  const s = r.server;
  const parts = [
    `${s.flavor === "mariadb" ? "MariaDB" : s.flavor === "percona" ? "Percona Server" : "MySQL"} ${s.version.replace(/-.*/, "")}`,
    r.volume
      ? `${r.volume.writeIops} write IOPS, ${r.volume.meterKiB === 16 ? "metered per 16 KiB" : `I/Os ≤ ${r.volume.meterKiB} KiB as one`}`
      : s.kind === "throwaway"
        ? "unthrottled disk"
        : s.label,
    `${Math.round(s.bufferPoolBytes / 1048576)} MiB buffer pool`,
    `${r.workload.tables} x ${r.workload.tableSize} rows`,
    `${r.workload.seconds} s runs`,
    `${r.workload.repeats} repeats`,
  ];
  return parts.join(", ");
}
