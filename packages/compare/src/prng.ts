/** A source of uniform random numbers in [0, 1). Every random choice in this package goes through one. */
export interface Rng {
  /** Next uniform double in [0, 1) with 32 bits of randomness. */
  next(): number;
}

/**
 * Seeded xoshiro128** generator; the 128-bit state is filled from the seed with splitmix32 so that
 * nearby seeds (0, 1, 2, ...) give unrelated streams.
 *
 * Reference: D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
 * ACM TOMS 47(4), 2021 (https://prng.di.unimi.it/xoshiro128starstar.c).
 *
 * @param seed any number; only its low 32 bits (after truncation) are used
 * @example
 * const rng = createRng(42);
 * rng.next(); // 0.59..., the same on every run
 */
export function createRng(seed: number): Rng {
  let sm = Math.trunc(seed) >>> 0;
  const splitmix32 = (): number => {
    sm = (sm + 0x9e3779b9) >>> 0;
    let z = sm;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let s0 = splitmix32();
  let s1 = splitmix32();
  let s2 = splitmix32();
  let s3 = splitmix32();
  // The all-zero state is the one forbidden state of xoshiro.
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  return {
    next(): number {
      const r = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
      const t = (s1 << 9) >>> 0;
      s2 = (s2 ^ s0) >>> 0;
      s3 = (s3 ^ s1) >>> 0;
      s1 = (s1 ^ s2) >>> 0;
      s0 = (s0 ^ s3) >>> 0;
      s2 = (s2 ^ t) >>> 0;
      s3 = rotl(s3, 11);
      return r / 4294967296;
    },
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
