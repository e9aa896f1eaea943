/** Block-level observations of one window within one stratum, in time order. */
export interface RatioCell {
  /** Block numbers (time / block length), ascending; used for the autocorrelation structure. */
  readonly positions: ArrayLike<number>;
  /** Block means of the series being judged. */
  readonly x: ArrayLike<number>;
  /** Block means of the control series paired with x (difference in differences), when present. */
  readonly c?: ArrayLike<number>;
}

/** One stratum (for example one hour of day) observed in both windows. */
export interface RatioStratum {
  readonly before: RatioCell;
  readonly after: RatioCell;
}

/** An effect on the log scale: log(after/before), or log of the ratio of ratios against a control. */
export interface LogRatioEstimate {
  readonly logRatio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly pValue: number;
}
