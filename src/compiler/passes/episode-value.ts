/**
 * The order retrieved earlier messages fill their allowance in. A budget is a knapsack: filled by
 * relevance alone, one long and fairly relevant message (a pasted file, a long answer) takes the room
 * of several short turns that each answer the question as well, such as the one-line instruction the
 * user gave beside it. So episodes go in by relevance per token, the greedy order for a knapsack, with
 * two tempers that keep it from favouring short near-misses:
 *  - length counts with a power below 1 (EPISODE_LENGTH_EXPONENT), so relevance still leads;
 *  - a message of a paragraph or less counts as a paragraph (EPISODE_MIN_COST_TOKENS): among
 *    conversational turns, a few words more or less say nothing about their worth, and relevance
 *    alone orders them.
 * Measured with bench:all (evidence recall, bench:beam @2k / @8k, bench:locomo @2k): relevance alone
 * 0.395 / 0.488 and 0.818; by relevance per token^0.7 with this floor 0.590 / 0.715 and 0.818; without
 * the floor BEAM gains a little more and LoCoMo loses 0.004, which the floor exists to prevent.
 */

/** The power length is weighed with: at 1, pure value per token; at 0, relevance alone. */
export const EPISODE_LENGTH_EXPONENT = 0.7;
/** What a message up to about a paragraph counts as, in tokens (see above). */
export const EPISODE_MIN_COST_TOKENS = 100;

/** A retrieved message's worth per token: its similarity to the query over its weighed length. */
export function episodeValue(similarity: number, tokens: number): number {
  return similarity / Math.max(EPISODE_MIN_COST_TOKENS, tokens) ** EPISODE_LENGTH_EXPONENT;
}
