import { perList } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import type { DeadClaim } from "./dead-claim";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface ClaimsAgainstMemos {
  claimsAgainst: WeakMap<DeadClaim[], ClaimsAgainst>;
}

/** Per dead list: the messages some of its claims were spoken in, and the narrower lists made from it. */
export interface ClaimsAgainst {
  spokenIn: Set<string>;
  /** When the out-of-scope claims were supposed, distinct and in order. */
  supposedAt: string[];
  lists: Map<string, DeadClaim[]>;
}

/**
 * The dead claims that weigh on one message: hygiene hides, and packing masks, the text that restates
 * one of them. A dead claim must not come back by another route, and two routes are not another:
 * - the caller's own turn (`own`) restating a claim they may not see: those are their own words;
 * - a turn restating what it said itself under a scope of its own, a hypothetical or hedged sentence:
 *   the scope gate weighed the turn as a whole and kept it, so one sentence's cue never hides the rest;
 * - a turn said before a supposition was made, in the same words: it was a real statement then.
 * The list handed back is the same list for the same message, so per-list memos carry over.
 */
export function claimsAgainst(
  message: ContextObject,
  own: boolean,
  dead: DeadClaim[],
  memos: ClaimsAgainstMemos,
): DeadClaim[] {
  const table = perList(memos.claimsAgainst, dead, () => ({
    spokenIn: new Set(dead.flatMap((c) => (c.spokenIn ? [c.spokenIn] : []))),
    supposedAt: [...new Set(dead.flatMap((c) => (c.saidAt ? [c.saidAt] : [])))].sort(),
    lists: new Map(),
  }));
  const spokenHere = table.spokenIn.has(message.objectId);
  // Suppositions made after this message: it said its words before anyone supposed them.
  const later = table.supposedAt.length - countAtOrBefore(table.supposedAt, message.ts);
  if (!own && !spokenHere && later === 0) return dead;
  const key = `${own ? "own" : ""}\u0000${spokenHere ? message.objectId : ""}\u0000${later}`;
  let list = table.lists.get(key);
  if (!list) {
    const kept = dead.filter(
      (c) =>
        !(own && c.reason === "not_permitted") &&
        !(spokenHere && c.spokenIn === message.objectId) &&
        !(c.saidAt !== undefined && c.saidAt > message.ts),
    );
    list = kept.length === dead.length ? dead : kept;
    table.lists.set(key, list);
  }
  return list;
}

/** How many of the ordered times are at or before `ts` (binary search). */
function countAtOrBefore(times: readonly string[], ts: string): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as string) <= ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
