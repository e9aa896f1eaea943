/** Placeholders with the shape of what is loading; announced once to screen readers. */

export function CardsSkeleton() {
  return (
    <div className="cards" role="status" aria-label="Loading the fleet summary">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="card">
          <div className="skeleton skeleton-line" style={{ width: "60%" }} />
          <div className="skeleton" style={{ height: "1.8rem", width: "40%", marginTop: "0.4rem" }} />
        </div>
      ))}
    </div>
  );
}

export function TableSkeleton({ rows = 12 }: { rows?: number }) {
  return (
    <div className="section" role="status" aria-label="Loading instances">
      <div className="skeleton" style={{ height: "2.1rem", width: "50%", marginBottom: "0.8rem" }} />
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="skeleton skeleton-line" style={{ height: "1.6rem" }} />
      ))}
    </div>
  );
}

export function SectionSkeleton({ label, lines = 5 }: { label: string; lines?: number }) {
  return (
    <div className="section" role="status" aria-label={label}>
      <div className="skeleton skeleton-line" style={{ width: "30%", height: "1.1rem" }} />
      {Array.from({ length: lines }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="skeleton skeleton-line" style={{ width: `${90 - ((i * 13) % 40)}%` }} />
      ))}
    </div>
  );
}

export function ChartsSkeleton() {
  return (
    <div className="charts" role="status" aria-label="Loading charts">
      {Array.from({ length: 4 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="chart">
          <div className="skeleton skeleton-line" style={{ width: "40%" }} />
          <div className="skeleton" style={{ height: 220 }} />
        </div>
      ))}
    </div>
  );
}
