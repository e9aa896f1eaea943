"use client";
import { ErrorPanel } from "../../components/error-panel.js";

export default function RecommendationsError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return <ErrorPanel title="The recommendations page failed" error={error} reset={reset} />;
}
