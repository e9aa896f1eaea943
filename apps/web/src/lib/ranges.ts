/** Chart ranges the instance page offers (`?range=`), shared by the page and the data layer. */
import { z } from "zod";

export const RANGE_KEYS = ["15m", "1h", "6h", "24h", "7d", "all"] as const;
export type RangeKey = (typeof RANGE_KEYS)[number];

export const RANGE_SECONDS: Readonly<Record<Exclude<RangeKey, "all">, number>> = {
  "15m": 900,
  "1h": 3600,
  "6h": 21_600,
  "24h": 86_400,
  "7d": 604_800,
};

export const RANGE_LABELS: Readonly<Record<RangeKey, string>> = {
  "15m": "15 minutes",
  "1h": "1 hour",
  "6h": "6 hours",
  "24h": "24 hours",
  "7d": "7 days",
  all: "whole recording",
};

export const rangeParamSchema = z.enum(RANGE_KEYS);
