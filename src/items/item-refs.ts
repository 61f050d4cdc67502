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
 * the newest (refs are in the order extraction read them). `counted` holds every source already counted
 * for the item in this extraction run, the ones cut included, and gains those counted now: a run can
 * cite one message twice (two candidates merged into one item), and a source cut from `held` cannot be
 * told from a new one otherwise. Across runs none comes again: extraction reads each message once.
 */
export function joinRefs(
  held: ItemRefs,
  added: readonly string[],
  counted: Set<string> = new Set(),
): ItemRefs {
  const joined = [...held.refs];
  let count = refCount(held);
  for (const ref of held.refs) counted.add(ref);
  for (const ref of added) {
    if (counted.has(ref)) continue;
    counted.add(ref);
    joined.push(ref);
    count++;
  }
  return bounded(joined, count);
}

/**
 * A stored item with its refs cut as joinRefs cuts them: an item written before the cut, with thousands,
 * is read back bounded, its count kept.
 */
export function withBoundedRefs(item: StateItem): StateItem {
  if (item.refs.length <= ITEM_REFS_KEPT) return item;
  return { ...item, ...bounded(item.refs, refCount(item)) };
}

function bounded(refs: string[], count: number): ItemRefs {
  const kept = refs.length > ITEM_REFS_KEPT ? [refs[0] as string, ...refs.slice(1 - ITEM_REFS_KEPT)] : refs;
  return count > kept.length ? { refs: kept, ref_count: count } : { refs: kept };
}
