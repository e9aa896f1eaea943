"use client";
/**
 * Write-path charts with uPlot (canvas, bundled: nothing loads from a CDN). Colours come from the CSS
 * variables, so a theme change redraws them; each chart has a text summary for screen readers.
 */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { bytes, num, pct, seconds, utc, withUnit } from "../lib/format.js";

export interface ChartData {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly series: readonly {
    readonly name: string;
    readonly points: readonly (readonly [number, number | null])[];
  }[];
}

const COLOURS = [
  "--chart-1",
  "--chart-2",
  "--chart-3",
  "--chart-4",
  "--chart-5",
  "--chart-6",
  "--chart-7",
  "--chart-8",
];

/** Aligns series on the union of their timestamps (uPlot's data layout), gaps as null. */
export function align(series: ChartData["series"]): uPlot.AlignedData {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const col: (number | null)[] = new Array(xs.length).fill(null);
    for (const [t, v] of s.points) col[index.get(t)!] = v !== null && Number.isFinite(v) ? v : null;
    return col;
  });
  return [xs, ...ys] as uPlot.AlignedData;
}

/** Axis ticks stay short: the unit is in the caption, except where the scale itself varies (s, ms, KiB). */
function tick(v: number, unit: string): string {
  if (unit === "ratio") return pct(v);
  if (unit === "seconds") return seconds(v);
  if (unit === "bytes/s") return bytes(v);
  return num(v);
}

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** A vertical line at a time (e.g. a rollout's change point), with its label. */
export interface ChartMarker {
  readonly t: number;
  readonly label: string;
}

function Chart({ chart, markers }: { chart: ChartData; markers: readonly ChartMarker[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const data = align(chart.series);
    let plot: uPlot | null = null;
    const build = () => {
      plot?.destroy();
      const axis = {
        stroke: css("--muted"),
        grid: { stroke: css("--border"), width: 1 },
        ticks: { stroke: css("--border") },
      };
      plot = new uPlot(
        {
          width: Math.max(200, el.clientWidth),
          height: 220,
          legend: { show: true },
          cursor: { drag: { x: true, y: false } },
          scales: { x: { time: true } },
          hooks: {
            draw: [
              (u: uPlot) => {
                const ctx = u.ctx;
                for (const m of markers) {
                  const x = Math.round(u.valToPos(m.t, "x", true));
                  if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
                  ctx.save();
                  ctx.strokeStyle = css("--text");
                  ctx.fillStyle = css("--text");
                  ctx.lineWidth = 1.5 * devicePixelRatio;
                  ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
                  ctx.beginPath();
                  ctx.moveTo(x, u.bbox.top);
                  ctx.lineTo(x, u.bbox.top + u.bbox.height);
                  ctx.stroke();
                  ctx.font = `${11 * devicePixelRatio}px sans-serif`;
                  ctx.fillText(m.label, x + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
                  ctx.restore();
                }
              },
            ],
          },
          axes: [axis, { ...axis, size: 64, values: (_u, splits) => splits.map((v) => tick(v, chart.unit)) }],
          series: [
            { value: (_u, v) => (v == null ? "–" : utc(v)) },
            ...chart.series.map((s, i) => ({
              label: s.name,
              stroke: css(COLOURS[i % COLOURS.length]!),
              width: 1.5,
              spanGaps: false,
              value: (_u: uPlot, v: number | null) => (v == null ? "–" : withUnit(v, chart.unit)),
            })),
          ],
        },
        data,
        el,
      );
    };
    build();
    const resize = new ResizeObserver(() =>
      plot?.setSize({ width: Math.max(200, el.clientWidth), height: 220 }),
    );
    resize.observe(el);
    const themeObserver = new MutationObserver(build);
    themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    media.addEventListener("change", build);
    return () => {
      resize.disconnect();
      themeObserver.disconnect();
      media.removeEventListener("change", build);
      plot?.destroy();
    };
  }, [chart, markers]);

  return <div ref={ref} className="chart-canvas" aria-hidden="true" />;
}

function summary(chart: ChartData): string {
  return chart.series
    .map((s) => {
      const vs = s.points.map((p) => p[1]).filter((v): v is number => v !== null && Number.isFinite(v));
      if (vs.length === 0) return `${s.name}: no data`;
      const last = vs[vs.length - 1]!;
      const max = Math.max(...vs);
      return `${s.name}: latest ${withUnit(last, chart.unit)}, peak ${withUnit(max, chart.unit)}`;
    })
    .join("; ");
}

const NO_MARKERS: readonly ChartMarker[] = [];

export function Charts({
  charts,
  markers = NO_MARKERS,
}: {
  charts: readonly ChartData[];
  markers?: readonly ChartMarker[];
}) {
  return (
    <div className="charts">
      {charts.map((c) => (
        <figure key={c.id} className="chart" aria-labelledby={`chart-${c.id}`} data-chart={c.id}>
          <figcaption id={`chart-${c.id}`}>
            {c.title} <span className="subtle">({c.unit})</span>
          </figcaption>
          {c.series.length === 0 ? (
            <div className="chart-empty">No data for this chart in the range (missing, not zero).</div>
          ) : (
            <>
              <Chart chart={c} markers={markers} />
              <p className="visually-hidden">{summary(c)}</p>
            </>
          )}
        </figure>
      ))}
    </div>
  );
}
