import type { StateItem } from "./types";

/**
 * Source messages an item keeps at most: the one it was first read from and the newest ones. Seed 002
 * merges by the union of refs, which over a long thread grows without end: an item restated in every
 * sitting of a 100,000-message thread gathered 4,417 refs, the thread's 142 items 24,834. Every compile
 * read the stated claims of all of them, every trace listed them (145 KB of a 245 KB response), and
 * EXPAND would have put thousands of turns in front of the model. Every source still counts: `ref_count`
 * and the rendered `refs:N` give how many there were.
 */
export const ITEM_REFS_KEPT = 64;

/** The refs part of an item: what it keeps, and how many sources it had when that is more. */
export type ItemRefs = Pick<StateItem, "refs" | "ref_count">;

/** How many source messages an item was read from, kept or not. */
export function refCount(item: ItemRefs): number {
  return item.ref_count ?? item.refs.length;
}

/**
 * `held` with the sources in `added` joined, each id once, cut to ITEM_REFS_KEPT: the first source and
 * the newest (refs are in the order extraction read them). A source already cut from `held` cannot be
 * told from a new one; extraction reads each message once, so none comes again.
 */
export function joinRefs(held: ItemRefs, added: readonly string[]): ItemRefs {
  const kept = new Set(held.refs);
  const joined = [...held.refs];
  for (const ref of added) {
    if (kept.has(ref)) continue;
    kept.add(ref);
    joined.push(ref);
  }
  const count = refCount(held) + (joined.length - held.refs.length);
  const refs =
    joined.length > ITEM_REFS_KEPT ? [joined[0] as string, ...joined.slice(1 - ITEM_REFS_KEPT)] : joined;
  return count > refs.length ? { refs, ref_count: count } : { refs };
}
