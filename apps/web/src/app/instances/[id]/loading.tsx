import { ChartsSkeleton, SectionSkeleton } from "../../../components/skeletons.js";

export default function Loading() {
  return (
    <>
      <div className="page-head">
        <div
          className="skeleton"
          style={{ height: "1.8rem", width: "22rem" }}
          role="status"
          aria-label="Loading the instance"
        />
      </div>
      <SectionSkeleton label="Loading the verdict" lines={6} />
      <SectionSkeleton label="Loading findings" lines={4} />
      <ChartsSkeleton />
    </>
  );
}
