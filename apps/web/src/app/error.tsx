"use client";
import { ErrorPanel } from "../components/error-panel.js";

export default function FleetError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return <ErrorPanel title="The fleet page failed" error={error} reset={reset} />;
}
