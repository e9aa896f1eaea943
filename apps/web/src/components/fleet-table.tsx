"use client";
/**
 * The fleet table: one page of the instances, sorted, filtered and searched on the server (the URL holds
 * the state: sorting, a filter or the search asks the server for the new first page), so the browser
 * parses and hydrates PAGE_SIZE rows however large the fleet; only the visible rows are in the DOM. Each
 * row's sparkline arrives drawn (server/fleet/trends.ts) in a promise of its own, so the rows never wait for it.
 */
import { useVirtualizer, type Virtualizer } from "@tanstack/react-virtual";
import { FLAVORS, GATE_STATUSES as GATES, SHARE_BASIS_MARKS, VERDICTS } from "@untorn/vocabulary/words";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import {
  type Dispatch,
  type KeyboardEvent,
  memo,
  type RefObject,
  type SetStateAction,
  Suspense,
  use,
  useEffect,
  useMemo,
  useRef,
  useState,
  useTransition,
} from "react";
import {
  DEFAULT_DIR,
  DEFAULT_QUERY,
  type FleetQuery,
  fleetQueryToParams,
  ONLY,
  ONLY_LABELS,
  type SortKey,
} from "../lib/fleet-query.js";
import type { TableRow } from "../lib/fleet-row.js";
import { flavorName, num, pct, serverLabel } from "../lib/format.js";
import { gainText } from "../lib/gain.js";
import { instanceHref } from "../lib/paths.js";
import { type PageTrends, SPARKLINE, TREND_KEYS, TREND_VIEWS, type TrendKey } from "../lib/sparkline.js";
import { decodeRows, type EncodedRow } from "../lib/table-rows.js";
import { doublewriteLabel, GateBadge, gateLabel, VerdictBadge, verdictLabel } from "./badges.js";

const ROW_HEIGHT = 44;

interface Column {
  readonly key: SortKey;
  readonly label: string;
  readonly title?: string;
  readonly numeric?: boolean;
}

const COLUMNS: readonly Column[] = [
  { key: "instance", label: "Instance" },
  { key: "cluster", label: "Cluster" },
  { key: "server", label: "Server" },
  { key: "role", label: "Role" },
  { key: "doublewrite", label: "Doublewrite" },
  {
    key: "gate",
    label: "Safety gate",
    title: "Is every page write verified atomic? Needed before doublewrite off.",
  },
  { key: "verdict", label: "Verdict", title: "Write-bound verdict and its confidence" },
  {
    key: "amplification",
    label: "DW pages/flushed",
    numeric: true,
    title:
      "Doublewrite pages per flushed data page (1 = every flushed page written twice, 0 = doublewrite off)",
  },
  {
    key: "share",
    label: "DW share",
    numeric: true,
    title:
      "Doublewrite's share of the device's write bytes (* = of InnoDB's write bytes: no device data; † = of InnoDB's write bytes: the device is shared with other instances or processes)",
  },
  { key: "gain", label: "Expected gain", title: "The best opportunity's expected gain" },
];

/** What the trend cell says when it has no line to draw. */
const TREND_TEXT: Readonly<Record<Exclude<PageTrends["state"], "ok" | "stale">, string>> = {
  "not-recorded": "not recorded",
  unavailable: "unavailable",
  "no-source": "–",
};

/** One row's sparkline, or in words why there is none (never a line that was not measured). */
function TrendCell({ trends, instance }: { trends: Promise<PageTrends>; instance: string }) {
  const t = use(trends);
  const cell = t.cells[instance];
  if (t.state === "ok" || t.state === "stale") {
    if (!cell)
      return (
        <span className="subtle" title={`${t.what}: no value for this instance in the range`}>
          no data
        </span>
      );
    const label =
      t.state === "stale"
        ? `${cell.label} (from the last good read: ${t.note ?? "the source fails"})`
        : cell.label;
    return (
      <svg
        className={t.state === "stale" ? "sparkline stale" : "sparkline"}
        role="img"
        aria-label={label}
        viewBox={`0 0 ${SPARKLINE.width} ${SPARKLINE.height}`}
        width={SPARKLINE.width}
        height={SPARKLINE.height}
        data-trend
      >
        <title>{label}</title>
        <path d={cell.d} />
      </svg>
    );
  }
  return (
    <span className="subtle" title={t.note ?? undefined} data-trend-state={t.state}>
      {TREND_TEXT[t.state]}
    </span>
  );
}

/** One row; memoised so scrolling re-renders only the rows that enter the window. */
const Row = memo(function Row({
  row,
  index,
  offset,
  start,
  stale,
  trends,
}: {
  row: TableRow;
  /** Index on this page; offset + index among the matching rows. */
  index: number;
  offset: number;
  start: number;
  stale: boolean;
  trends: Promise<PageTrends>;
}) {
  return (
    <tr
      aria-rowindex={offset + index + 2}
      data-row-index={index}
      data-stale={stale || undefined}
      className={stale ? "stale" : undefined}
      style={{ transform: `translateY(${start}px)` }}
    >
      <td>
        <Link
          className="instance-link"
          href={instanceHref(row.instance)}
          title={row.instance}
          // Rows scroll past by the thousand: prefetching each would flood the server.
          prefetch={false}
          data-instance-link
        >
          {row.instance}
        </Link>
        {stale && (
          <span className="stale-tag" title="From the last good read: the data source is failing">
            stale
          </span>
        )}
      </td>
      <td>{row.cluster ?? <span className="subtle">–</span>}</td>
      <td title={serverLabel(row.flavor, row.version)}>{serverLabel(row.flavor, row.version)}</td>
      <td>{row.role ?? <span className="subtle">–</span>}</td>
      <td>{doublewriteLabel(row.doublewrite)}</td>
      <td className="stack-cell">
        <GateBadge status={row.gate.status} demoOnly={row.gate.demoOnly} />
      </td>
      <td className="stack-cell">
        <VerdictBadge verdict={row.verdict} />
        <span className="subtle cell-note">confidence {pct(row.confidence)}</span>
      </td>
      <td className="num">
        {row.amplification === null ? <span className="subtle">–</span> : num(row.amplification)}
      </td>
      <td className="num">
        {row.dblwrShare === null ? (
          <span className="subtle">–</span>
        ) : (
          <span
            title={
              row.dblwrShareBasis ? (SHARE_BASIS_MARKS[row.dblwrShareBasis].note ?? undefined) : undefined
            }
          >
            {pct(row.dblwrShare)}
            {row.dblwrShareBasis ? SHARE_BASIS_MARKS[row.dblwrShareBasis].mark : ""}
          </span>
        )}
      </td>
      <td className="trend-cell">
        <Suspense fallback={<span className="subtle">…</span>}>
          <TrendCell trends={trends} instance={row.instance} />
        </Suspense>
      </td>
      <td className="gain-cell">
        {row.gain ? (
          <>
            <span className="gain-text" title={gainText(row.gain)}>
              {gainText(row.gain)}
            </span>
            {row.gain.blocked && <span className="badge badge-outline gated-tag">gated</span>}
          </>
        ) : (
          <span className="subtle">–</span>
        )}
      </td>
    </tr>
  );
});

type SetQuery = Dispatch<SetStateAction<FleetQuery>>;

/** Search and filters; memoised so scrolling the table does not re-render them. */
const Controls = memo(function Controls({
  query,
  clusters,
  setQuery,
}: {
  query: FleetQuery;
  clusters: readonly string[];
  setQuery: SetQuery;
}) {
  const set = (patch: Partial<FleetQuery>) => setQuery((q) => ({ ...q, ...patch }));
  const filtered =
    query.q !== "" ||
    query.cluster !== null ||
    query.flavor !== null ||
    query.verdict !== null ||
    query.gate !== null ||
    query.only !== null;

  return (
    <search className="controls" aria-label="Filter instances">
      <div className="field">
        <label htmlFor="fleet-search">Search</label>
        <input
          id="fleet-search"
          type="search"
          placeholder="instance, cluster, version…"
          value={query.q}
          maxLength={200}
          onChange={(e) => set({ q: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="filter-cluster">Cluster</label>
        <select
          id="filter-cluster"
          value={query.cluster ?? ""}
          onChange={(e) => set({ cluster: e.target.value || null })}
        >
          <option value="">All clusters</option>
          {clusters.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-flavor">Flavor</label>
        <select
          id="filter-flavor"
          value={query.flavor ?? ""}
          onChange={(e) => set({ flavor: (e.target.value || null) as FleetQuery["flavor"] })}
        >
          <option value="">All flavors</option>
          {FLAVORS.map((f) => (
            <option key={f} value={f}>
              {flavorName(f)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-verdict">Verdict</label>
        <select
          id="filter-verdict"
          value={query.verdict ?? ""}
          onChange={(e) => set({ verdict: (e.target.value || null) as FleetQuery["verdict"] })}
        >
          <option value="">All verdicts</option>
          {VERDICTS.map((v) => (
            <option key={v} value={v}>
              {verdictLabel(v)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-gate">Safety gate</label>
        <select
          id="filter-gate"
          value={query.gate ?? ""}
          onChange={(e) => set({ gate: (e.target.value || null) as FleetQuery["gate"] })}
        >
          <option value="">All gates</option>
          {GATES.map((g) => (
            <option key={g} value={g}>
              {gateLabel(g)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-only">Show</label>
        <select
          id="filter-only"
          value={query.only ?? ""}
          onChange={(e) => set({ only: (e.target.value || null) as FleetQuery["only"] })}
        >
          <option value="">All instances</option>
          {ONLY.map((o) => (
            <option key={o} value={o}>
              {ONLY_LABELS[o]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-trend">Trend</label>
        <select
          id="filter-trend"
          value={query.trend}
          onChange={(e) => set({ trend: e.target.value as TrendKey })}
          title="What the trend column draws for each row over the time range"
        >
          {TREND_KEYS.map((k) => (
            <option key={k} value={k}>
              {TREND_VIEWS[k].label}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        onClick={() => setQuery({ ...DEFAULT_QUERY, range: query.range, trend: query.trend })}
        disabled={!filtered && query.sort === "rank"}
      >
        Reset
      </button>
      <a
        className="button"
        href={csvHref(query)}
        download
        data-testid="fleet-csv"
        title="The matching instances, sorted as shown, over this time range"
      >
        Download CSV
      </a>
    </search>
  );
});

const Head = memo(function Head({ query, setQuery }: { query: FleetQuery; setQuery: SetQuery }) {
  const sortBy = (key: SortKey) =>
    setQuery((q) =>
      q.sort === key
        ? { ...q, dir: q.dir === "asc" ? "desc" : "asc" }
        : { ...q, sort: key, dir: DEFAULT_DIR[key] },
    );
  return (
    <thead>
      <tr aria-rowindex={1}>
        {COLUMNS.flatMap((c) => {
          const active = query.sort === c.key;
          const th = (
            <th
              key={c.key}
              scope="col"
              aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : "none"}
              className={c.numeric ? "num" : undefined}
              title={c.title}
            >
              <button type="button" onClick={() => sortBy(c.key)}>
                {c.label}
                <span aria-hidden="true">{active ? (query.dir === "asc" ? "▲" : "▼") : ""}</span>
              </button>
            </th>
          );
          if (c.key !== "share") return [th];
          return [
            th,
            <th key="trend" scope="col" className="trend-head" title={trendTitle(query)}>
              {TREND_VIEWS[query.trend].label}
            </th>,
          ];
        })}
      </tr>
    </thead>
  );
});

/** The trend column's title: the figure, the range its lines span and how they are scaled. */
const trendTitle = (q: FleetQuery) =>
  `${TREND_VIEWS[q.trend].plots} over ${q.range ? `the last ${q.range}` : "the page's default range"}: one line per instance, ${q.trend === "dw-pages" ? "the series the instance page charts, scaled from 0 to its peak" : "scaled from 0 to 100%"}; each line's label gives its first, last and peak values`;

/** GET /api/v1/fleet.csv with the table's filters, sort and range. */
const csvHref = (q: FleetQuery) => {
  const p = fleetQueryToParams(q).toString();
  return `/api/v1/fleet.csv${p ? `?${p}` : ""}`;
};

/** Milliseconds of quiet typing before the search asks the server. */
const SEARCH_DEBOUNCE_MS = 250;

const hrefOf = (pathname: string, q: FleetQuery, page: number) => {
  const p = fleetQueryToParams(q);
  if (page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `?${s}` : pathname;
};

/** Arrow keys, Page Up / Down and Ctrl+Home / End on a row's link move the focus between rows. */
function rowKeyHandler(
  length: number,
  scrollRef: RefObject<HTMLDivElement | null>,
  virtualizer: Virtualizer<HTMLDivElement, Element>,
): (e: KeyboardEvent<HTMLDivElement>) => void {
  const focusRow = (index: number) => {
    const i = Math.max(0, Math.min(length - 1, index));
    virtualizer.scrollToIndex(i, { align: "auto" });
    const tryFocus = (attempt: number) => {
      const link = scrollRef.current?.querySelector<HTMLAnchorElement>(
        `[data-row-index="${i}"] a[data-instance-link]`,
      );
      if (link) link.focus();
      else if (attempt < 5) requestAnimationFrame(() => tryFocus(attempt + 1));
    };
    requestAnimationFrame(() => tryFocus(0));
  };

  return (e: KeyboardEvent<HTMLDivElement>) => {
    const rowEl = (e.target as HTMLElement).closest<HTMLElement>("tr[data-row-index]");
    if (!rowEl) return;
    const index = Number(rowEl.dataset.rowIndex);
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1);
    const target =
      e.key === "ArrowDown"
        ? index + 1
        : e.key === "ArrowUp"
          ? index - 1
          : e.key === "PageDown"
            ? index + page
            : e.key === "PageUp"
              ? index - page
              : e.key === "Home" && e.ctrlKey
                ? 0
                : e.key === "End" && e.ctrlKey
                  ? length - 1
                  : null;
    if (target === null) return;
    e.preventDefault();
    focusRow(target);
  };
}

/** The row count, the pager and the "no match" note under the table. */
function TableFoot({
  count,
  total,
  shown,
  offset,
  page,
  pages,
  pending,
  goPage,
  clear,
}: {
  count: number;
  total: number;
  shown: number;
  offset: number;
  page: number;
  pages: number;
  pending: boolean;
  goPage: (n: number) => void;
  clear: () => void;
}) {
  return (
    <>
      <div className="table-foot">
        <output aria-live="polite" data-testid="fleet-count">
          {pages > 1
            ? `Showing ${num(offset + 1)}–${num(offset + shown)} of ${num(count)}${count === total ? "" : ` matching (${num(total)})`} instances`
            : count === total
              ? `${num(total)} instances`
              : `Showing ${num(count)} of ${num(total)} instances`}
        </output>
        <span>
          Arrow keys move between rows · * share of InnoDB's writes (no device data)
          {pending ? " · updating…" : ""}
        </span>
      </div>
      {pages > 1 && (
        <nav className="pager" aria-label="Pages of instances">
          <button type="button" onClick={() => goPage(page - 1)} disabled={page <= 1}>
            Previous
          </button>
          <span data-testid="fleet-page">
            Page {num(page)} of {num(pages)}
          </span>
          <button type="button" onClick={() => goPage(page + 1)} disabled={page >= pages}>
            Next
          </button>
        </nav>
      )}
      {count === 0 && (
        <p className="empty" role="status">
          No instance matches these filters.{" "}
          <button type="button" onClick={clear}>
            Clear filters
          </button>
        </p>
      )}
    </>
  );
}

export function FleetTable({
  encoded,
  total,
  count,
  page,
  pages,
  offset,
  initial,
  clusters,
  stale = false,
  trends,
}: {
  /** The page's rows as lib/table-rows.ts encodes them: compact on the wire. */
  encoded: readonly EncodedRow[];
  /** Instances in the fleet. */
  total: number;
  /** Instances matching the query, over all pages. */
  count: number;
  /** 1-based page shown, of `pages`. */
  page: number;
  pages: number;
  /** Index of the page's first row among the matching ones. */
  offset: number;
  initial: FleetQuery;
  clusters: readonly string[];
  /** Every row comes from the last good snapshot (the source is failing): each is marked. */
  stale?: boolean;
  /** The page's sparklines, drawn on the server (server/fleet/trends.ts); the rows do not wait for them. */
  trends: Promise<PageTrends>;
}) {
  const visible = useMemo(() => decodeRows(encoded), [encoded]);
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  // The controls answer at once; the rows follow when the server's page arrives.
  const [query, setQuery] = useState<FleetQuery>(initial);
  const scrollRef = useRef<HTMLDivElement>(null);
  const asked = useRef(initial);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    // Hydrated: sorting, filtering and keyboard moves work from here (the benchmark reads the mark).
    performance.mark("untorn:fleet-table-ready");
    setReady(true);
  }, []);

  useEffect(() => {
    if (query === asked.current) return;
    const typing = query.q !== asked.current.q;
    const t = setTimeout(
      () => {
        asked.current = query;
        // A new query starts at its first page.
        startTransition(() => router.replace(hrefOf(pathname, query, 1), { scroll: false }));
      },
      typing ? SEARCH_DEBOUNCE_MS : 0,
    );
    return () => clearTimeout(t);
  }, [query, router, pathname]);

  useEffect(() => {
    // A link to another query (a summary card, the browser's back button) changes the URL under the
    // table: its state follows, unless the URL is the one this table last asked for.
    if (fleetQueryToParams(initial).toString() === fleetQueryToParams(asked.current).toString()) return;
    asked.current = initial;
    setQuery(initial);
  }, [initial]);

  useEffect(() => {
    // A new page of rows starts at its top.
    if (scrollRef.current && encoded) scrollRef.current.scrollTop = 0;
  }, [encoded]);

  const goPage = (n: number) =>
    startTransition(() => router.replace(hrefOf(pathname, asked.current, n), { scroll: false }));

  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // Rows rendered on the server before the browser measures the real viewport.
    initialRect: { width: 1400, height: 24 * ROW_HEIGHT },
  });

  const onRowKey = rowKeyHandler(visible.length, scrollRef, virtualizer);

  return (
    <section aria-labelledby="fleet-table-title">
      <h2 id="fleet-table-title" className="visually-hidden">
        Instances
      </h2>
      <Controls query={query} clusters={clusters} setQuery={setQuery} />

      {/* Arrow keys on a row's link move to the next or previous row (rows outside the window are not in the DOM). */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: keyboard handling delegated from the rows' links */}
      <div
        ref={scrollRef}
        className="fleet-table"
        data-testid="fleet-table"
        data-ready={ready ? "true" : undefined}
        onKeyDown={onRowKey}
      >
        <table aria-label="Fleet instances" aria-rowcount={count + 1} aria-busy={pending || undefined}>
          <Head query={query} setQuery={setQuery} />
          <tbody style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => (
              <Row
                key={visible[item.index]!.instance}
                row={visible[item.index]!}
                index={item.index}
                offset={offset}
                stale={stale}
                start={item.start}
                trends={trends}
              />
            ))}
          </tbody>
        </table>
      </div>
      <TableFoot
        count={count}
        total={total}
        shown={visible.length}
        offset={offset}
        page={page}
        pages={pages}
        pending={pending}
        goPage={goPage}
        clear={() => setQuery({ ...DEFAULT_QUERY, range: query.range })}
      />
    </section>
  );
}
