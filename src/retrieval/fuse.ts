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
      scores.set(id, (scores.get(id) ?? 0) + rankTerm(weight, k, index));
    });
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** What one ranking gives the candidate at `index` (0 for its first place). */
const rankTerm = (weight: number, k: number, index: number) => weight / (k + index + 1);

/**
 * reciprocalRankFusion for rankings of one list's members given by position (0 to size - 1, none
 * repeated within a ranking): each position's fused score, 0 where no ranking holds it. Ranking a
 * list's own objects this way needs no ids and no sort of the result.
 */
export function fusedByPosition(
  rankings: readonly (readonly number[])[],
  size: number,
  k = RRF_K,
  weights: readonly number[] = [],
): Float64Array {
  if (!(k >= 0)) throw new RangeError(`k must be a non-negative number, got ${k}`);
  const scores = new Float64Array(size);
  for (const [r, ranking] of rankings.entries()) {
    const weight = weights[r] ?? 1;
    for (let index = 0; index < ranking.length; index++) {
      const at = ranking[index] as number;
      scores[at] = (scores[at] as number) + rankTerm(weight, k, index);
    }
  }
  return scores;
}

/**
 * A fused score spread over [0, 1]: the best candidate's is 1, and a candidate only one retriever
 * ranked, in last place at `depth`, gets 0. Fused scores alone bunch together (1 / (k + rank)), which
 * would let the composite's recency term outrank a clearly better match.
 */
export function spreadFused(score: number, top: number, k: number, depth: number): number {
  const floor = 1 / (k + depth);
  return top > floor ? Math.max(0, (score - floor) / (top - floor)) : score > 0 ? 1 : 0;
}
