"use client";

/** Last resort when the root layout itself fails: plain HTML, no app styles. */
export default function GlobalError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", padding: "2rem" }}>
        <h1>Untorn failed to render</h1>
        <p role="alert">{error.digest ? `Reference ${error.digest} (see the server log).` : error.message}</p>
        <button type="button" onClick={reset}>
          Try again
        </button>
      </body>
    </html>
  );
}
