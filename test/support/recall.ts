import type { VectorMatch } from "../../src/ports/vector-index";

/**
 * Recall@k of an approximate answer against the exact one: the share of the exact top k it matches.
 * A match counts when it scores at least the exact k-th score, so a vector tied with the exact cut (a
 * repeated sentence under another id) is not a miss. Returned scores are exact in both answers.
 */
export function recallAt(k: number, approximate: VectorMatch[], exact: VectorMatch[]): number {
  const wanted = exact.slice(0, k);
  const cut = wanted.at(-1)?.score;
  if (cut === undefined) return 1;
  const hits = approximate.slice(0, k).filter((match) => match.score >= cut).length;
  return Math.min(hits, wanted.length) / wanted.length;
}
