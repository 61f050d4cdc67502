import { BoundedMap, MEMO_LIMITS, perList } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { type ClaimIndexMemos, claimAt, firstIn } from "./claim-index";
import { type DeadClaim, sameSet } from "./dead-claim";
import { deadFiguresOf, type FigureMemos } from "./figures";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface SuccessionMemos extends ClaimIndexMemos, FigureMemos {
  /** Of each dead list that follows another, what carries over from it (see Succession). */
  successions: WeakMap<DeadClaim[], Succession>;
  /** Lists already paired with the list before them, or followed by another. */
  notedLists: WeakSet<DeadClaim[]>;
  /**
   * The first claim of a list that a text quotes, per list: by text for restatedClaim, by object for the
   * claims an object quotes from while they were believed (speaksFromDeadState; an object's text and time
   * never change).
   */
  restatedVerdicts: WeakMap<DeadClaim[], BoundedMap<string, DeadClaim | null>>;
  quotedVerdicts: WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>;
  /**
   * Masked texts by claim list: packing masks every detail level of every candidate it tries, and a warm
   * thread's settlement, dead claims included, is reused between compiles (src/compiler/compile-cache.ts),
   * so the same texts come back against the same list.
   */
  maskedTexts: WeakMap<DeadClaim[], BoundedMap<string, string>>;
}

export const restatedVerdictsOf = (claims: DeadClaim[], memos: SuccessionMemos) =>
  perList(
    memos.restatedVerdicts,
    claims,
    () => new BoundedMap<string, DeadClaim | null>(MEMO_LIMITS.verdicts),
  );

export const quotedVerdictsOf = (claims: DeadClaim[], memos: SuccessionMemos) =>
  perList(memos.quotedVerdicts, claims, () => new WeakMap<ContextObject, DeadClaim | null>());

export const maskedTextsOf = (claims: DeadClaim[], memos: SuccessionMemos) =>
  perList(memos.maskedTexts, claims, () => new BoundedMap<string, string>(MEMO_LIMITS.maskedTexts));

/**
 * A dead list that follows another: the next settlement's, when a written fact or a new turn changed
 * a few of its claims. Which claim a text quotes first depends only on each claim's text and when it
 * died (firstIn), so a claim with the same two, in the same order among the claims both lists share,
 * answers the same: what a text quoted from the list before carries over, weighed against the few
 * claims added, and a text not seen before is looked up in the list before's index when it has one.
 * Either way, no verdict is worked out again and no index is built for a list that hardly changed.
 */
export interface Succession {
  /** The list before, and the verdicts found against it. */
  before: DeadClaim[];
  quoted: WeakMap<ContextObject, DeadClaim | null>;
  restated: BoundedMap<string, DeadClaim | null>;
  /** Of its claims, those this list keeps, each with its claim here. */
  kept: Map<DeadClaim, DeadClaim>;
  /** This list's positions of the kept claims. */
  at: Map<DeadClaim, number>;
  /** The claims this list adds, in list order, with their positions. */
  added: { claim: DeadClaim; at: number }[];
  /**
   * Masked texts carry over too, for a text none of the claims added or dropped occurs in, when the
   * kept claims have the same texts, no claim added or dropped holds a bracket, and the dead figures
   * are the same (maskWith then masks with the same claims, in the same order).
   */
  masked?: { texts: BoundedMap<string, string>; changed: string[] };
}

/** Past this many added claims a list is looked up on its own. */
const SUCCESSION_LIMIT = 64;

/**
 * Notes that `next` follows `before` (settlements of one thread, in turn). Claims pair off in order
 * by their text and the time they died; those of `next` left unpaired are added. Only the latest
 * step is kept: the list before forgets its own predecessor, so no chain of lists stays alive.
 */
export function followsClaims(next: DeadClaim[], before: DeadClaim[], memos: SuccessionMemos): void {
  // A list seen before keeps what was found against it (lists come back: withRetired's merged list
  // per query, a settlement handed back whole), so only a list new to this step follows another.
  if (next === before || memos.notedLists.has(next)) return;
  memos.notedLists.add(next);
  memos.notedLists.add(before);
  // Both lists are sorted longest first and differ by a few claims: they are walked side by side, and
  // where they part, the nearer claim further on that pairs off is taken (any pairing in order will do).
  const kept = new Map<DeadClaim, DeadClaim>();
  const at = new Map<DeadClaim, number>();
  const added: Succession["added"] = [];
  const dropped: DeadClaim[] = [];
  const pairs = (a: DeadClaim, b: DeadClaim) => a === b || (a.lower === b.lower && a.diedAt === b.diedAt);
  let i = 0;
  let j = 0;
  while (j < next.length) {
    const claim = next[j] as DeadClaim;
    const was = before[i];
    if (was && pairs(was, claim)) {
      kept.set(was, claim);
      at.set(claim, j);
      i++;
      j++;
      continue;
    }
    let ahead = -1;
    for (let k = i + 1; k < Math.min(before.length, i + SUCCESSION_LIMIT); k++) {
      if (pairs(before[k] as DeadClaim, claim)) {
        ahead = k;
        break;
      }
    }
    let behind = -1;
    if (was) {
      for (let k = j + 1; k < Math.min(next.length, j + SUCCESSION_LIMIT); k++) {
        if (pairs(was, next[k] as DeadClaim)) {
          behind = k;
          break;
        }
      }
    }
    if (ahead !== -1 && (behind === -1 || ahead - i <= behind - j)) {
      // Claims of the list before up to the pair are gone.
      for (; i < ahead; i++) dropped.push(before[i] as DeadClaim);
    } else {
      added.push({ claim, at: j });
      j++;
      if (behind === -1 && was) {
        dropped.push(was);
        i++;
      }
    }
    if (added.length + dropped.length > SUCCESSION_LIMIT) return;
  }
  for (; i < before.length; i++) dropped.push(before[i] as DeadClaim);
  if (added.length + dropped.length > SUCCESSION_LIMIT) return;
  const quoted = quotedVerdictsOf(before, memos);
  const restated = restatedVerdictsOf(before, memos);
  const changed = [...added.map((a) => a.claim), ...dropped];
  const maskable =
    [...kept].every(([was, is]) => was.text === is.text) &&
    changed.every((c) => !/[[\]]/.test(c.lower)) &&
    sameSet(deadFiguresOf(before, memos), deadFiguresOf(next, memos));
  const texts = maskable ? maskedTextsOf(before, memos) : undefined;
  memos.successions.delete(before);
  memos.successions.set(next, {
    before,
    quoted,
    restated,
    kept,
    at,
    added,
    masked: maskable && texts ? { texts, changed: changed.map((c) => c.lower) } : undefined,
  });
}

/**
 * firstIn(text, claims, accept), from the list `claims` follows when there is one: the claim the text
 * quoted first there (`known`, or looked up in its index), if this list keeps it, unless an added claim
 * before it is quoted too.
 */
export function firstAfter(
  claims: DeadClaim[],
  text: string,
  accept: (claim: DeadClaim) => boolean,
  known: (before: Succession) => DeadClaim | null | undefined,
  memos: SuccessionMemos,
): DeadClaim | undefined {
  const succession = memos.successions.get(claims);
  if (!succession) return firstIn(text.toLowerCase(), claims, accept, memos);
  const lower = text.toLowerCase();
  let best = known(succession);
  if (best === undefined) {
    // A text not seen before: the list before's index, if built, serves for the claims kept.
    if (!memos.claimIndexes.has(succession.before)) return firstIn(lower, claims, accept, memos);
    best = firstIn(lower, succession.before, (c) => succession.kept.has(c) && accept(c), memos) ?? null;
  }
  let here: DeadClaim | undefined;
  if (best) {
    here = succession.kept.get(best);
    // The claim quoted before is gone: what comes after it was never looked at.
    if (!here) return firstIn(lower, claims, accept, memos);
  }
  const until = here ? (succession.at.get(here) as number) : Number.POSITIVE_INFINITY;
  for (const { claim, at } of succession.added) {
    if (at >= until) break;
    if (claimAt(lower, claim.lower) !== -1 && accept(claim)) return claim;
  }
  return here;
}
