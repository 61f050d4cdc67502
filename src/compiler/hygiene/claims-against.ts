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
  lists: Map<string, DeadClaim[]>;
}

/**
 * The dead claims that weigh on one message: hygiene hides, and packing masks, the text that restates
 * one of them. A dead claim must not come back by another route, and two routes are not another:
 * - the caller's own turn (`own`) restating a claim they may not see: those are their own words;
 * - a turn restating what it said itself under a scope of its own, a hypothetical or hedged sentence:
 *   the scope gate weighed the turn as a whole and kept it, so one sentence's cue never hides the rest.
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
    lists: new Map(),
  }));
  const spokenHere = table.spokenIn.has(message.objectId);
  if (!own && !spokenHere) return dead;
  const key = `${own ? "own" : ""}\u0000${spokenHere ? message.objectId : ""}`;
  let list = table.lists.get(key);
  if (!list) {
    const kept = dead.filter(
      (c) => !(own && c.reason === "not_permitted") && !(spokenHere && c.spokenIn === message.objectId),
    );
    list = kept.length === dead.length ? dead : kept;
    table.lists.set(key, list);
  }
  return list;
}
