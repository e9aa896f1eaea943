"use client";
import { ErrorPanel } from "../../../components/error-panel.js";

export default function RolloutError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return <ErrorPanel title="The rollout page failed" error={error} reset={reset} />;
}
