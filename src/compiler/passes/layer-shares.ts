import type { EvidenceSource } from "../../domain/trace";
import type { ContextObject } from "../context-object";
import { type LexicalMemos, termCounts } from "../lexical";
import type { Ranked } from "./rank";

/**
 * Pass 7, before packing: budgets follow the question (issue 16, item 7). Stored state (state items
 * and facts) is packed before the conversation and may take most of the budget; that is right when
 * the answer is a current value, and wrong when the answer is something said in the conversation that
 * extraction kept no fact of ("What did you recommend for the retries?"). Which one a question needs
 * is read from the evidence itself: the query's words that the relevant stored state holds, against
 * those the retrieved earlier turns hold. When the turns hold words of the question that no stored
 * object does, and more of them, the evidence is in the conversation, and stored state is packed
 * within CONVERSATION_STATE_SHARE of what remains instead of the request's `facts_share` (default 0.7)
 * for facts and no bound for state items. Critical rules are never bounded by this.
 */

/** Stored state's share of the budget when the question's evidence is in the conversation. */
export const CONVERSATION_STATE_SHARE = 0.3;
/** The retrieved turns whose words count as the conversation's evidence: the best-scored ones. */
export const EVIDENCE_TURNS = 8;

export interface LayerShares {
  evidence: EvidenceSource;
  /** The share of what remains that state items and facts may take together (1: no bound). */
  stateShare: number;
  /** The share of what remains after state items that facts may take. */
  factsShare: number;
}

/**
 * Which of `wanted` the objects' texts hold; the scan stops once it holds all of them, or all of
 * `enough` (when given), past which the caller's answer cannot change.
 */
function covered(
  wanted: ReadonlySet<string>,
  objects: readonly ContextObject[],
  memos: LexicalMemos,
  enough?: ReadonlySet<string>,
): Set<string> {
  const found = new Set<string>();
  // The question's few words are looked up in each text's term counts, rather than each text's many
  // terms in the question's.
  const missing = [...wanted];
  const holdsEnough = () => enough !== undefined && [...enough].every((term) => found.has(term));
  for (const o of objects) {
    if (missing.length === 0) break;
    const counts = termCounts(o.text, memos);
    let added = false;
    for (let i = missing.length - 1; i >= 0; i--) {
      const term = missing[i] as string;
      if (!counts.has(term)) continue;
      found.add(term);
      missing.splice(i, 1);
      added = true;
    }
    if (added && holdsEnough()) break;
  }
  return found;
}

export function layerShares(
  queryTerms: readonly string[],
  state: readonly Ranked[],
  episodes: readonly Ranked[],
  requestedFactsShare: number,
  memos: LexicalMemos,
): LayerShares {
  const keep: LayerShares = { evidence: "state", stateShare: 1, factsShare: requestedFactsShare };
  const wanted = new Set(queryTerms);
  if (wanted.size === 0 || episodes.length === 0) return keep;
  const best = [...episodes].sort((a, b) => b.score - a.score).slice(0, EVIDENCE_TURNS);
  const inTurns = covered(
    wanted,
    best.map((r) => r.object),
    memos,
  );
  if (inTurns.size === 0) return keep;
  // Once the state holds every term the turns hold, the state keeps its share: the rest of it (often
  // hundreds of facts, most without the question's rarer words) need not be read.
  const inState = covered(
    wanted,
    state.map((r) => r.object),
    memos,
    inTurns,
  );
  const onlyInTurns = [...inTurns].some((term) => !inState.has(term));
  if (!onlyInTurns || inTurns.size <= inState.size) return keep;
  return {
    evidence: "conversation",
    stateShare: Math.min(CONVERSATION_STATE_SHARE, requestedFactsShare),
    factsShare: requestedFactsShare,
  };
}
