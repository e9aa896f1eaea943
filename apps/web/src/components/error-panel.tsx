"use client";
import { useEffect } from "react";

/** What an error boundary shows: what failed, the server's reference for the log, and a retry. */
export function ErrorPanel({
  title,
  error,
  reset,
}: {
  title: string;
  error: Error & { digest?: string };
  reset: () => void;
}) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="banner banner-bad" role="alert">
      <strong>{title}.</strong>
      <p>
        {error.digest
          ? `The server logged the details under reference ${error.digest}.`
          : error.message || "An unexpected error happened."}
      </p>
      <p>
        <button type="button" onClick={reset}>
          Try again
        </button>{" "}
        <a href="/">Back to the fleet</a>
      </p>
    </div>
  );
}
