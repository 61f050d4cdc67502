import type { CarriedScope } from "../../items/types";

/**
 * How long a scope inferred from the conversation lasts (issue 16, item 2). An exploratory or draft
 * stretch that nobody closes must not hide the rest of the conversation, so it also ends by itself:
 * - at the end of its sitting: the next turn comes after a pause of SITTING_GAP_MS or more;
 * - after TURN_LIMIT user turns inside it (a brainstorm is a few turns, not a conversation);
 * - at a turn that announces a change of topic ("Anyway, …", "On another note, …");
 * - when it is adopted ("let's go with that": what it said becomes current) or rejected ("never
 *   mind", "let's not": what it said stays a supposition).
 * Task and session scopes are the client's instructions about duration and keep their own closers.
 */
export const SITTING_GAP_MS = 2 * 60 * 60 * 1000;
export const TURN_LIMIT = 6;

const TOPIC_SHIFT =
  /^\W*(?:anyway|anyhow|moving on|on (?:a |an )?(?:different|separate|unrelated|other|another) (?:note|topic|subject)|on another note|changing (?:the )?(?:subject|topic)|(?:a |on a )?(?:different|separate|unrelated|new) (?:topic|question|subject)|unrelated(?: question)?\s*[:,]|separately\s*[:,]|switching (?:gears|topics)|in other news)\b/i;

/** Turning a supposition down: checked before adoption, so "let's not go with that" is no adoption. */
const REJECT =
  /\b(?:let'?s not|we won'?t|we will not|not going (?:to|with)|forget (?:it|that|about (?:it|that))|never ?mind|scratch (?:that|it)|drop (?:it|that|the idea)|bad idea|not doing (?:that|it))\b|^\W*(?:no|nah)\b[,.!]?\s*(?:let'?s|we'?ll|we will)\s+(?:stick|keep|stay)\b/i;
/** Taking a supposition up, by pointing back at it: "let's go with that", "that's the plan". */
const ADOPT =
  /\b(?:let'?s|we'?ll|we will|i'?ll|i will|we should|we'?re going to|i'?m going to)\s+(?:go with|do|take|use|run with|stick with|adopt)\s+(?:that|it|this|those|these)\b|\b(?:going|go|went) with (?:that|it|this)\b|\b(?:that'?s|it'?s) (?:the plan|settled|decided|a deal|a go)\b|\bmake (?:it|that|this) official\b|\block (?:it|that|this) in\b/i;

/** Whether a scope of this kind ends by itself (hypothetical and draft stretches do). */
export const inferred = (scope: CarriedScope) => scope.scope === "hypothetical" || scope.scope === "draft";

/** Whether an inferred scope is over by the time a user turn starts at `ts` with `opening` words. */
export function overBefore(scope: CarriedScope, ts: string, opening: string): boolean {
  if (!inferred(scope)) return false;
  const last = scope.last_ts ? Date.parse(scope.last_ts) : Number.NaN;
  if (Date.parse(ts) - last >= SITTING_GAP_MS) return true;
  return (scope.turns ?? 0) >= TURN_LIMIT || TOPIC_SHIFT.test(opening);
}

/** What a sentence does to a supposition it follows: adopts it, rejects it, or neither. */
export function verdictOn(sentence: string): "adopted" | "rejected" | null {
  if (REJECT.test(sentence)) return "rejected";
  return ADOPT.test(sentence) ? "adopted" : null;
}
