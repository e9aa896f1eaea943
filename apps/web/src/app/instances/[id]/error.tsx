"use client";
import { ErrorPanel } from "../../../components/error-panel.js";

export default function InstanceError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return <ErrorPanel title="The instance page failed" error={error} reset={reset} />;
}
