/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking contributes 1 / (k + rank) for every id it
 * holds, rank counted from 1. Only ranks are used, so rankings on incomparable scales (FTS5 bm25 and
 * cosine similarity) combine without calibration; k damps the weight of the very top ranks so that
 * agreement between rankings outweighs a single first place.
 */
export const RRF_K = 60;

export interface Fused {
  id: string;
  score: number;
}

/**
 * Fused scores, best first; ties are broken by id so the order is deterministic. `weights[i]` scales
 * ranking i's contributions (1 when absent), for retrievers of unequal precision.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k = RRF_K,
  weights: readonly number[] = [],
): Fused[] {
  if (!(k >= 0)) throw new RangeError(`k must be a non-negative number, got ${k}`);
  const scores = new Map<string, number>();
  for (const [r, ranking] of rankings.entries()) {
    const weight = weights[r] ?? 1;
    const seen = new Set<string>();
    ranking.forEach((id, index) => {
      // A ranking that repeats an id counts it once, at its best rank.
      if (seen.has(id)) return;
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + weight / (k + index + 1));
    });
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
