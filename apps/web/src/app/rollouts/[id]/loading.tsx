import { ChartsSkeleton, SectionSkeleton } from "../../../components/skeletons.js";

export default function Loading() {
  return (
    <>
      <div className="page-head">
        <div
          className="skeleton"
          style={{ height: "1.8rem", width: "22rem" }}
          role="status"
          aria-label="Loading the rollout"
        />
      </div>
      <SectionSkeleton label="Loading waves and gates" lines={6} />
      <ChartsSkeleton />
    </>
  );
}
