/**
 * A small seeded generator (mulberry32): the same seed gives the same numbers on every machine, so the
 * index's sampling, and so its lists, depend only on what is stored.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `count` distinct positions of `0 … size - 1` (all of them when `count ≥ size`), in drawn order. */
export function samplePositions(size: number, count: number, random: () => number): number[] {
  const positions = Array.from({ length: size }, (_, i) => i);
  const drawn = Math.min(count, size);
  // A partial Fisher–Yates shuffle: the first `drawn` slots end up a uniform sample.
  for (let i = 0; i < drawn; i++) {
    const j = i + Math.floor(random() * (size - i));
    [positions[i], positions[j]] = [positions[j] as number, positions[i] as number];
  }
  return positions.slice(0, drawn);
}
