"use client";

import { useEffect, useState } from "react";

/** Whole seconds since `since` (ms since the epoch), counting up while shown. */
export function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(since);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return <span data-testid="fleet-reading-elapsed">{Math.max(0, Math.round((now - since) / 1000))} s</span>;
}
