import { reciprocalRankFusion, spreadFused } from "./fuse";
import { type Adjacent, rescueNeighbours } from "./neighbours";
import { compositeScore } from "./score";
import { inPeriod, type Period } from "./time-query";

/**
 * Ranks a thread's earlier messages for a query: the lexical (FTS5 bm25) and vector rankings are fused
 * by reciprocal rank, normalised so the best match has similarity 1, damped outside a period the query
 * names, extended by neighbour rescue, and finally scored with seed 004's composite, recency aside.
 */
export interface EpisodeRankingInput {
  /** Message ids, best bm25 first. */
  lexical: readonly string[];
  /** Message ids by their best passage's bm25 (a short message is one passage), best first. */
  passages?: readonly string[];
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
  /** Seed 004's composite, recency aside: the order retrieval hands messages on in. */
  score: number;
  /** How well the message answers the query, in [0, 1] (fused rank, period and rescue shares applied). */
  similarity: number;
  rescuedBy?: string;
}

/** How many candidates each retriever contributes to fusion. */
export const FUSION_DEPTH = 100;
/**
 * Vector matches below this cosine are left out of fusion. With the offline hashing embedder a lower
 * cosine means a few shared trigrams, which adds noise to bm25 rather than recall (measured with
 * bench:locomo: lexical-only ranking beat fusion with all top-100 vector matches).
 */
export const MIN_VECTOR_SIMILARITY = 0.4;
/**
 * A steeper rank curve than fusion's usual 60: with two rankers and a recency term in the composite,
 * the first few matches must stay clearly ahead of the next tens (bench:locomo, k 20 vs 60: 0.71 vs
 * 0.68 recall at a 700-token episode budget, equal at 1,400).
 */
export const EPISODE_RRF_K = 20;
/** The vector ranking's weight in fusion relative to bm25's, for the same reason. */
export const VECTOR_WEIGHT = 0.5;
/** Messages outside the period a query names keep this share of their similarity. */
export const OUT_OF_PERIOD_SHARE = 0.5;
/** Messages are episodes for the frame; they carry no outcome, usage or confidence of their own. */
const EPISODE_TYPE_PRIORITY = 0.4;

/**
 * The similarity an earlier message ranks with when it refers to an entity the query names, in whatever
 * words (the entity registry, src/entities): as a fact naming it does (src/thread/compilation.ts), a close
 * match, yet below the messages whose own words match the query best.
 */
export const ENTITY_EPISODE_SIMILARITY = 0.8;

/** Episodes with their ranking score and similarity, as rankEpisodes hands them on. */
export interface ScoredEpisode {
  id: string;
  ts: string;
  score: number;
  similarity?: number;
}

/**
 * Ranked episodes with the messages that refer to a named entity among them: one already ranked rises to
 * the entity's similarity when it ranked lower, one not ranked joins with it, and the list is ordered
 * again as rankEpisodes orders it. `named` are the messages, already fetched.
 */
export function withEntityEpisodes<T extends ScoredEpisode>(ranked: readonly T[], named: readonly T[]): T[] {
  const score = compositeScore({
    semantic: ENTITY_EPISODE_SIMILARITY,
    typePriority: EPISODE_TYPE_PRIORITY,
    ageDays: 0,
  });
  const raised = (e: T): T =>
    (e.similarity ?? 0) >= ENTITY_EPISODE_SIMILARITY
      ? e
      : { ...e, score: Math.max(e.score, score), similarity: ENTITY_EPISODE_SIMILARITY };
  const namedIds = new Set(named.map((e) => e.id));
  const rankedIds = new Set(ranked.map((e) => e.id));
  return [
    ...ranked.map((e) => (namedIds.has(e.id) ? raised(e) : e)),
    ...named.filter((e) => !rankedIds.has(e.id)).map(raised),
  ].sort(
    (a, b) =>
      b.score - a.score ||
      (a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

export function rankEpisodes(input: EpisodeRankingInput): RankedEpisode[] {
  const vector = input.vector.filter((m) => m.score >= MIN_VECTOR_SIMILARITY).map((m) => m.id);
  const fused = reciprocalRankFusion([input.lexical, input.passages ?? [], vector], EPISODE_RRF_K, [
    1,
    1,
    VECTOR_WEIGHT,
  ]);
  const top = fused[0]?.score ?? 0;
  if (top <= 0) return [];
  const { period } = input;
  const similarity = fused.map(({ id, score }) => {
    const ts = input.messages.get(id)?.ts;
    const outside = period !== null && ts !== undefined && !inPeriod(ts, period);
    const scaled = spreadFused(score, top, EPISODE_RRF_K, FUSION_DEPTH);
    return { id, score: scaled * (outside ? OUT_OF_PERIOD_SHARE : 1) };
  });
  // Texts and times are looked up in the caller's map, not copied: it holds every message named above.
  const texts = { get: (id: string) => input.messages.get(id)?.content };
  const ts = (id: string) => input.messages.get(id)?.ts ?? input.now;
  return rescueNeighbours(similarity, input.adjacency, texts)
    .map((entry) => {
      // Recency is left out of an earlier message's score (every one counts as said now): the recent
      // tail already brings the newest turns, and among earlier ones the date outweighed the words.
      // With seed 004's 30-day half-life, a chat spanning months ranked a turn months old below a
      // weaker match from last week (bench:locomo +0.009, bench:beam +0.019 at 2k and +0.038 at 8k
      // without it; a half-life stretched to the chat's span still lost on bench:beam). Of two equally
      // relevant turns the newer ranks first.
      const score = compositeScore({
        semantic: entry.score,
        typePriority: EPISODE_TYPE_PRIORITY,
        ageDays: 0,
      });
      return { ...entry, score, similarity: entry.score };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        (ts(a.id) > ts(b.id) ? -1 : ts(a.id) < ts(b.id) ? 1 : 0) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}
