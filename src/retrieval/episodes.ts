import { reciprocalRankFusion } from "./fuse";
import { type Adjacent, rescueNeighbours } from "./neighbours";
import { ageInDays, compositeScore } from "./score";
import { inPeriod, type Period } from "./time-query";

/**
 * Ranks a thread's earlier messages for a query: the lexical (FTS5 bm25) and vector rankings are fused
 * by reciprocal rank, normalised so the best match has similarity 1, damped outside a period the query
 * names, extended by neighbour rescue, and finally scored with seed 004's composite.
 */
export interface EpisodeRankingInput {
  /** Message ids, best bm25 first. */
  lexical: readonly string[];
  /** Vector matches, nearest first, with their cosine. */
  vector: readonly { id: string; score: number }[];
  /** Time and text of every message named in `lexical`, `vector` or `adjacency`. */
  messages: ReadonlyMap<string, { ts: string; content: string }>;
  adjacency: ReadonlyMap<string, Adjacent>;
  now: string;
  period: Period | null;
}

export interface RankedEpisode {
  id: string;
  score: number;
  rescuedBy?: string;
}

/** Below this cosine a vector match is hashing noise (about 3 standard deviations at 384 dimensions). */
export const MIN_VECTOR_SIMILARITY = 0.15;
/** Messages outside the period a query names keep this share of their similarity. */
export const OUT_OF_PERIOD_SHARE = 0.5;
/** Messages are episodes for the frame; they carry no outcome, usage or confidence of their own. */
const EPISODE_TYPE_PRIORITY = 0.4;

export function rankEpisodes(input: EpisodeRankingInput): RankedEpisode[] {
  const vector = input.vector.filter((m) => m.score >= MIN_VECTOR_SIMILARITY).map((m) => m.id);
  const fused = reciprocalRankFusion([input.lexical, vector]);
  const top = fused[0]?.score ?? 0;
  if (top <= 0) return [];
  const { period } = input;
  const similarity = fused.map(({ id, score }) => {
    const ts = input.messages.get(id)?.ts;
    const outside = period !== null && ts !== undefined && !inPeriod(ts, period);
    return { id, score: (score / top) * (outside ? OUT_OF_PERIOD_SHARE : 1) };
  });
  const texts = new Map([...input.messages].map(([id, m]) => [id, m.content]));
  return rescueNeighbours(similarity, input.adjacency, texts)
    .map((entry) => {
      const ts = input.messages.get(entry.id)?.ts ?? input.now;
      const score = compositeScore({
        semantic: entry.score,
        typePriority: EPISODE_TYPE_PRIORITY,
        ageDays: ageInDays(ts, input.now),
      });
      return { ...entry, score };
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
