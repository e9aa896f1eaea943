/**
 * The fleet table's sparklines, drawn on the server: an SVG path per instance from its trend
 * (@untorn/fleet/trends: runs of downsampled points, a gap left as a gap), and the accessible label that
 * says in words what the line shows. Pure; the browser only places the strings.
 */

import { seconds, withUnit } from "./format.js";

/** What the fleet table's trend column can draw (`?trend=`): the first is the default. */
export const TREND_KEYS = ["dw-pages", "dw-share", "busy"] as const;
export type TrendKey = (typeof TREND_KEYS)[number];

/** Each trend's column heading and what it plots, in words (the heading's title and the picker's options). */
export const TREND_VIEWS: Readonly<Record<TrendKey, { readonly label: string; readonly plots: string }>> = {
  "dw-pages": { label: "DW pages/s", plots: "Doublewrite pages/s (doublewrite pages written per second)" },
  "dw-share": {
    label: "Share trend",
    plots:
      "Doublewrite's share of write bytes on the basis the DW share column beside it gives (the device's; * or †: InnoDB's own)",
  },
  busy: {
    label: "Device busy",
    plots:
      "Device utilisation (the write pressure the advisor weighs: share of time the datadir's device had I/O in flight)",
  },
};

/** Width, height and inner padding of a sparkline, in CSS pixels (the viewBox is the same): word-sized. */
export const SPARKLINE = { width: 48, height: 18, pad: 2 } as const;

type Pt = readonly [number, number];

export interface SparklineScale {
  /** Unix seconds the x axis spans (the range asked for, so lines of one page share their time axis). */
  readonly start: number;
  readonly end: number;
  /** Values at the bottom and top edge; equal ends draw the line at the bottom (a flat zero). */
  readonly low: number;
  readonly high: number;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/**
 * `M x,y L x,y …` per run of points, in the box's coordinates (y grows downwards); a run of one point is
 * a dot (`h0`, drawn by a round line cap). Empty when there is nothing to draw.
 *
 *   sparklinePath([[[0, 0], [10, 5]]], { start: 0, end: 10, low: 0, high: 5 }) → "M2,16L46,2"
 */
export function sparklinePath(
  segments: readonly (readonly Pt[])[],
  scale: SparklineScale,
  box: { readonly width: number; readonly height: number; readonly pad: number } = SPARKLINE,
): string {
  const w = box.width - 2 * box.pad;
  const h = box.height - 2 * box.pad;
  const span = scale.end - scale.start;
  const range = scale.high - scale.low;
  const x = (t: number) => r1(box.pad + (span > 0 ? ((t - scale.start) / span) * w : w / 2));
  const y = (v: number) => {
    const f = range > 0 ? (Math.min(scale.high, Math.max(scale.low, v)) - scale.low) / range : 0;
    return r1(box.pad + h - f * h);
  };
  const parts: string[] = [];
  for (const run of segments) {
    if (run.length === 0) continue;
    parts.push(run.map(([t, v], i) => `${i === 0 ? "M" : "L"}${x(t)},${y(v)}`).join(""));
    if (run.length === 1) parts.push("h0");
  }
  return parts.join("");
}

/** What the sparkline's accessible label and tooltip say: the figure, the span, first, last and peak. */
export function sparklineLabel(o: {
  readonly what: string;
  readonly unit: string;
  readonly spanSeconds: number;
  readonly first: number;
  readonly last: number;
  readonly peak: number;
}): string {
  const v = (x: number) => withUnit(x, o.unit);
  return `${o.what} over ${seconds(o.spanSeconds)}: first ${v(o.first)}, last ${v(o.last)}, peak ${v(o.peak)}`;
}

/** One row's sparkline: its SVG path (in SPARKLINE's box) and what it shows, in words. */
export interface TrendCell {
  readonly d: string;
  readonly label: string;
}

export type TrendState = "ok" | "stale" | "not-recorded" | "unavailable" | "no-source";

/** The trends of one page of the fleet table. */
export interface PageTrends {
  readonly state: TrendState;
  /** Why there are no (fresh) trends: the source's error or what the recording lacks; null when ok. */
  readonly note: string | null;
  /** Which trend (`?trend=`). */
  readonly trend: TrendKey;
  /** The figure drawn ("Doublewrite pages/s", or the catalog signal's title), and its unit. */
  readonly what: string;
  readonly unit: string;
  /** Seconds the lines span, and the seconds between points. */
  readonly spanSeconds: number | null;
  readonly stepSeconds: number | null;
  /** By instance, for the instances asked for that have a value in the range. */
  readonly cells: Readonly<Record<string, TrendCell>>;
}
