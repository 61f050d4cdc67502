import type { CarriedScope } from "../../items/types";
import { shiftsTopic } from "./signals";
import { contentWords } from "./text";

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

/** Turning a supposition down: checked before adoption, so "let's not go with that" is no adoption. */
const REJECT =
  /\b(?:let'?s not|we won'?t|we will not|not going (?:to|with)|forget (?:it|that|about (?:it|that))|never ?mind|scratch (?:that|it)|drop (?:it|that|the idea)|bad idea|not doing (?:that|it)|decided against|(?:we'?ll|we will|i'?ll|i will|we'?re|i'?m) (?:pass|passing)(?: on (?:it|that|this|the idea))?(?=\s*(?:[.,;!]|$)))\b|^\W*(?:no|nah)\b[,.!]?\s*(?:let'?s|we'?ll|we will)\s+(?:stick|keep|stay)\b/i;
/**
 * Keeping what stood before a proposal turns it down: "we're keeping the Saturday", "I'll stick with
 * my old laptop". The object must be a thing kept ("the", "our", a figure), not a courtesy ("we'll
 * keep you posted", "keep it in mind").
 */
const KEEP =
  /\b(?:we'?re|we are|we'?ll|we will|i'?m|i am|i'?ll|i will|let'?s)\s+(?:just\s+|still\s+)?(?:keeping|keep|sticking with|stick with|staying with|stay with)\s+(?:the|our|my|what we (?:have|had)|[$\u20ac\u00a3]?\d)/i;
/** Taking a supposition up, by pointing back at it: "let's go with that", "that is the plan". */
const ADOPT =
  /\b(?:let'?s|we'?ll|we will|i'?ll|i will|we should|we'?re going to|i'?m going to)\s+(?:go with|do|take|use|run with|stick with|adopt)\s+(?:that|it|this|those|these)\b|\b(?:going|go|went) (?:with|for) (?:that|it|this)\b|\b(?:that|it|this)(?:'?s|\s+is)\s+(?:now\s+)?(?:the plan|our plan|settled|decided|a deal|a go|what we(?:'ll|\s+will|'re|\s+are)?\s+(?:do|doing|go with|going with))\b|\bsounds like a plan\b|\b(?:we'?re|we are|i'?m|i am)\s+doing (?:that|it|this)\b|\bmake (?:it|that|this) official\b|\block (?:it|that|this) in\b/i;

/**
 * Taking a proposal up by naming what it proposed: "fine, we'll take the LE", "let's book the Elm
 * Street one then". The object must share a word with the proposal (`terms`); a verb of choosing alone
 * ("we'll take the dog out") adopts nothing.
 */
const ADOPT_NAMED = new RegExp(
  [
    String.raw`\b(?:let'?s|we'?ll|we will|i'?ll|i will|we'?re going to|i'?m going to|we'?re|i'?m|we should)\s+(?:just\s+|definitely\s+)?(?:go(?:ing)? with|go(?:ing)? for|take|taking|pick|picking|choose|choosing|book|booking|get|getting|do|doing)\s+(?:the\s+|a\s+|an\s+)?([^.,;!?]+)`,
    // "We went with the LE", "I booked the Elm Street hall": the choice already made.
    String.raw`\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:decided on|settled on|went with|opted for|chose|picked|booked|ordered|bought)\s+(?:the\s+|a\s+|an\s+)?([^.,;!?]+)`,
    // "The LE it is."
    String.raw`^\W*(?:ok(?:ay)?,?\s+|fine,?\s+|alright,?\s+)?(?:the\s+)?([^.,;!?]{1,40}?)\s+it is\b`,
  ].join("|"),
  "i",
);

/**
 * Putting the decision off: "let me sit on it", "I'll sleep on it", "let me talk to Sam tonight". The
 * proposal stays open to a verdict from the next turns (at most DEFERRALS times).
 */
const DEFER =
  /\b(?:let me|i'?ll|i will|i need to|we need to|i want to|need to)\s+(?:sit on|sleep on|think (?:about|it over|on)|mull (?:it|that) over|talk (?:to|with|it over with)|check with|run it by|ask)\b|\b(?:not sure yet|undecided|both are tempting|haven'?t decided)\b/i;
export const DEFERRALS = 2;

/** Whether a turn puts a pending decision off. */
export const defers = (text: string) => DEFER.test(text);

/** Whether a sentence adopts the proposal that named `terms` by naming it again. */
export function adoptsByName(sentence: string, terms: readonly string[]): boolean {
  const m = ADOPT_NAMED.exec(sentence);
  const object = m?.[1] ?? m?.[2] ?? m?.[3];
  if (!object || terms.length === 0 || verdictOn(sentence) === "rejected") return false;
  const named = new Set(terms);
  return contentWords(object).some((w) => named.has(w));
}

/** Whether a scope of this kind ends by itself (hypothetical and draft stretches do). */
export const inferred = (scope: CarriedScope) => scope.scope === "hypothetical" || scope.scope === "draft";

/** Whether an inferred scope is over by the time a user turn starts at `ts` with `opening` words. */
export function overBefore(scope: CarriedScope, ts: string, opening: string): boolean {
  if (!inferred(scope)) return false;
  const last = scope.last_ts ? Date.parse(scope.last_ts) : Number.NaN;
  if (Date.parse(ts) - last >= SITTING_GAP_MS) return true;
  return (scope.turns ?? 0) >= TURN_LIMIT || shiftsTopic(opening);
}

/** What a sentence does to a supposition it follows: adopts it, rejects it, or neither. */
export function verdictOn(sentence: string): "adopted" | "rejected" | null {
  if (REJECT.test(sentence) || KEEP.test(sentence)) return "rejected";
  return ADOPT.test(sentence) ? "adopted" : null;
}
