"use client";

import { useEffect, useState } from "react";

/**
 * Whole seconds since `since` (ms since the epoch), counting up while shown; `at` is the server's clock
 * when it rendered, so the first paint and hydration agree.
 */
export function Elapsed({ since, at }: { since: number; at: number }) {
  const [now, setNow] = useState(at);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return <span data-testid="fleet-reading-elapsed">{Math.max(0, Math.round((now - since) / 1000))} s</span>;
}
