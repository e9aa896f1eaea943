import { CardsSkeleton, TableSkeleton } from "../components/skeletons.js";

export default function Loading() {
  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
      </div>
      <CardsSkeleton />
      <TableSkeleton />
    </>
  );
}
