/**
 * Derives an independent 32-bit seed from a base seed and labels (FNV-1a over the labels, then the
 * murmur3 finaliser), so each (instance, metric) gets its own random stream and results do not depend
 * on the order in which series are analysed.
 *
 * Reference: FNV-1a, http://www.isthe.com/chongo/tech/comp/fnv/; murmur3 fmix32, Austin Appleby.
 *
 * @example
 * deriveSeed(1, "db-1", "tps") === deriveSeed(1, "db-1", "tps"); // true
 * deriveSeed(1, "db-1", "tps") !== deriveSeed(1, "db-2", "tps"); // true
 */
export function deriveSeed(seed: number, ...labels: readonly string[]): number {
  let h = (0x811c9dc5 ^ (Math.trunc(seed) >>> 0)) >>> 0;
  for (const label of labels) {
    for (let i = 0; i < label.length; i++) {
      h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    }
    // Separator so ("ab","c") and ("a","bc") differ.
    h = Math.imul(h ^ 0xff, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
