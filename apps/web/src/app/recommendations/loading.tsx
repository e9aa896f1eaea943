import { SectionSkeleton } from "../../components/skeletons.js";

export default function Loading() {
  return (
    <>
      <div className="page-head">
        <h1>Recommendations</h1>
      </div>
      <SectionSkeleton label="Loading recommendations" lines={8} />
    </>
  );
}
