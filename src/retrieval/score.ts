/**
 * Seed 004's composite relevance score (step 4, "Score & Rank"): semantic similarity is the primary
 * signal (half the weight); frame priority of the memory type, recency with a 30-day half-life,
 * outcome quality, usage and confidence adjust it.
 */
export const SCORE_WEIGHTS = {
  semantic: 0.5,
  typePriority: 0.15,
  recency: 0.15,
  outcome: 0.1,
  usage: 0.05,
  confidence: 0.05,
} as const;

export const RECENCY_HALF_LIFE_DAYS = 30;

export type Outcome = "success" | "partial" | "failure" | "pending";

const OUTCOME_BOOST: Record<Outcome, number> = { success: 1.2, partial: 1.0, failure: 0.8, pending: 0.9 };

export interface ScoreSignals {
  /** Similarity to the query in [0, 1]. */
  semantic: number;
  /** The frame's priority for this memory type; 0.5 when the frame has no opinion. */
  typePriority?: number;
  /** Age in days at query time; negative ages (clock skew, future timestamps) count as new. */
  ageDays: number;
  outcome?: Outcome;
  activationCount?: number;
  confidence?: number;
}

/** exp(-ln 2 · age / half-life): 1 when new, 0.5 after one half-life. */
export function recencyWeight(ageDays: number, halfLifeDays = RECENCY_HALF_LIFE_DAYS): number {
  return Math.exp((-Math.LN2 * Math.max(0, ageDays)) / halfLifeDays);
}

/** Frequently used records rank a little higher, capped so usage never outweighs relevance. */
export function usageBoost(activationCount: number | undefined): number {
  if (!activationCount || activationCount <= 0) return 1;
  return Math.min(1 + Math.log10(activationCount) * 0.1, 1.5);
}

export function compositeScore(signals: ScoreSignals): number {
  return weightedScore(
    Math.min(1, Math.max(0, signals.semantic)),
    signals.typePriority ?? 0.5,
    recencyWeight(signals.ageDays),
    OUTCOME_BOOST[signals.outcome ?? "partial"],
    usageBoost(signals.activationCount),
    Math.min(1, Math.max(0, signals.confidence ?? 1)),
  );
}

/**
 * The composite itself, the one place its weights are applied: episode retrieval (compositeScore) and
 * pass 5's ranking (src/compiler/passes/rank.ts, which scores thousands of objects per compile from
 * parts kept per list, hence plain arguments rather than a signals object) both score through it.
 */
export function weightedScore(
  semantic: number,
  typePriority: number,
  recency: number,
  outcome: number,
  usage: number,
  confidence: number,
): number {
  return (
    semantic * SCORE_WEIGHTS.semantic +
    typePriority * SCORE_WEIGHTS.typePriority +
    recency * SCORE_WEIGHTS.recency +
    outcome * SCORE_WEIGHTS.outcome +
    usage * SCORE_WEIGHTS.usage +
    confidence * SCORE_WEIGHTS.confidence
  );
}

export const DAY_MS = 86_400_000;

/** `nowMs`, when given, is `Date.parse(now)` parsed once by a caller scoring many records. */
export function ageInDays(ts: string, now: string, nowMs = Date.parse(now)): number {
  const age = nowMs - Date.parse(ts);
  return Number.isFinite(age) ? age / DAY_MS : 0;
}
