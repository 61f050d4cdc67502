import { BoundedMap, MEMO_LIMITS, perList } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { type DeadClaim, distinctive } from "./dead-claim";
import { heldLiveOf, type LiveClaimsMemos } from "./live-claims";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface RetiredMemos extends LiveClaimsMemos {
  /** The lower-cased claims of a dead list. */
  knownTexts: WeakMap<DeadClaim[], Set<string>>;
  /** The lists withRetired merged from a dead list, by the values added. */
  mergedLists: WeakMap<DeadClaim[], BoundedMap<string, DeadClaim[]>>;
}

/**
 * Adds the values messages themselves retired ("the original launch date was Friday March 15th")
 * as dead claims from the moment they were retired, unless a live claim still holds them.
 *
 * Every compile hands over the retired values of the messages it sees, and a warm thread hands over
 * the same settled state with the same `live` list (src/compiler/compile-cache.ts), so both the
 * verdicts on each value and the merged lists are remembered per list. Lists are read as immutable.
 */
export function withRetired(
  dead: DeadClaim[],
  stated: Map<string, { ts: string; retired?: string[] }>,
  live: ContextObject[],
  memos: RetiredMemos,
): DeadClaim[] {
  // Both made on the first retired value: most compiles hand over none, and the live list of a large
  // project, new with every question, would be indexed for nothing.
  let heldLive: ((lower: string) => boolean) | undefined;
  let known: Set<string> | undefined;
  const added: DeadClaim[] = [];
  for (const [id, { ts, retired }] of stated) {
    for (const text of retired ?? []) {
      const lower = text.toLowerCase();
      // Copied, as values join it below; the copy of a remembered set costs less than building it.
      known ??= new Set(perList(memos.knownTexts, dead, () => new Set(dead.map((d) => d.lower))));
      if (!distinctive(text) || known.has(lower)) continue;
      heldLive ??= heldLiveOf(live, memos);
      if (heldLive(lower)) continue;
      known.add(lower);
      added.push({ text, lower, reason: "superseded", objectId: id, diedAt: ts, figures: [] });
    }
  }
  return mergedWith(dead, added, memos);
}

/**
 * `dead` with `added` joined, longest first. The merged list is a function of `dead` and of `added` in
 * order: the same pair gets the same list back, so the per-list index and masked texts carry over from
 * compile to compile.
 */
export function mergedWith(dead: DeadClaim[], added: DeadClaim[], memos: RetiredMemos): DeadClaim[] {
  if (!added.length) return dead;
  const merged = perList(memos.mergedLists, dead, () => new BoundedMap(MEMO_LIMITS.mergedLists));
  const key = added.map((a) => `${a.objectId}\u0000${a.diedAt}\u0000${a.text}`).join("\u0001");
  let list = merged.get(key);
  if (!list) {
    list = [...dead, ...added].sort((a, b) => b.text.length - a.text.length);
    merged.remember(key, list);
  }
  return list;
}
