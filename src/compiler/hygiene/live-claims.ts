import { BoundedMap, MEMO_LIMITS } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { type ClaimMemos, lowerClaim } from "./dead-claim";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface LiveClaimsMemos extends ClaimMemos {
  /** Each live list's claims and the verdicts given against them. */
  liveClaims: WeakMap<ContextObject[], LiveClaims>;
  /** The live list whose claims were gathered last: a new turn's list mostly holds the same claims. */
  lastLive: LiveClaims | undefined;
}

/** Between joined claims: a value holding it is checked claim by claim instead. */
const APART = "\u0000";
/** Past this many claims changed, a new live list checks values afresh rather than from the last one. */
const CARRY_LIMIT = 64;

/** A live list's distinct claims and the verdicts given on values against them. */
export interface LiveClaims {
  claims: Set<string>;
  verdicts: BoundedMap<string, boolean>;
  held: (lower: string) => boolean;
  /** The list this one followed, and the claims it added and dropped, when few changed. */
  base?: { parent: LiveClaims; added: string[]; dropped: string[] };
}

/** How many lists back a value's verdict is looked for (retrieval asks about other values per query). */
const CARRY_DEPTH = 8;

/** Whether claim and value hold one another: the claim holds the value or the value the claim. */
const related = (claim: string, lower: string) => claim.includes(lower) || lower.includes(claim);

/**
 * Whether some live claim holds a (lower-cased) value or is held by it, remembered per live list. A
 * changed fact makes a new list, and thousands of live claims would be scanned for every value: the
 * claims are joined once, apart, so that one search finds a claim holding the value, and kept by
 * length, so that the value's own pieces of those lengths are looked up.
 *
 * A new turn's list mostly holds the claims of the lists before it; a value checked against one of
 * those is weighed against the claims that changed since alone. No related claim there: a value not
 * held stays so unless a claim added since, and still live, relates to it; a held value stays held
 * unless a claim dropped since relates to it (it may have been the only one): that value, like one
 * never checked, is checked afresh.
 */
export function heldLiveOf(live: ContextObject[], memos: LiveClaimsMemos): (lower: string) => boolean {
  let found = memos.liveClaims.get(live);
  if (!found) {
    found = liveClaimsOf(live, memos.lastLive, memos);
    memos.liveClaims.set(live, found);
    memos.lastLive = found;
  }
  return found.held;
}

function liveClaimsOf(
  live: ContextObject[],
  previous: LiveClaims | undefined,
  memos: ClaimMemos,
): LiveClaims {
  const claims = new Set<string>();
  for (const object of live) {
    const lower = lowerClaim(object, memos);
    if (lower) claims.add(lower);
  }
  const self: LiveClaims = { claims, verdicts: new BoundedMap(MEMO_LIMITS.verdicts), held: () => false };
  if (previous && Math.abs(previous.claims.size - claims.size) <= CARRY_LIMIT) {
    const added: string[] = [];
    const dropped: string[] = [];
    for (const claim of claims) if (!previous.claims.has(claim)) added.push(claim);
    if (added.length <= CARRY_LIMIT) {
      for (const claim of previous.claims) if (!claims.has(claim)) dropped.push(claim);
      if (added.length + dropped.length <= CARRY_LIMIT) self.base = { parent: previous, added, dropped };
    }
  }
  // Lists further back than are looked at are let go.
  let last = self;
  for (let depth = 0; depth < CARRY_DEPTH && last.base; depth++) last = last.base.parent;
  last.base = undefined;
  // Built when a value is first checked afresh.
  let search: ((lower: string) => boolean) | undefined;
  const carried = (lower: string): boolean | undefined => {
    for (let at = self.base; at; at = at.parent.base) {
      const before = at.parent.verdicts.get(lower);
      if (before === undefined) continue;
      // The claims changed between that list and this one: those on the way from it.
      const steps: { added: string[]; dropped: string[] }[] = [];
      for (let step = self.base; step; step = step.parent.base) {
        steps.push(step);
        if (step === at) break;
      }
      if (!before) {
        return steps.some((step) => step.added.some((claim) => claims.has(claim) && related(claim, lower)));
      }
      return steps.some((step) => step.dropped.some((claim) => related(claim, lower))) ? undefined : true;
    }
    return undefined;
  };
  self.held = (lower: string) => {
    let verdict = self.verdicts.get(lower);
    if (verdict === undefined) {
      verdict = carried(lower);
      if (verdict === undefined) {
        search ??= searchOf([...claims]);
        verdict = search(lower);
      }
      self.verdicts.remember(lower, verdict);
    }
    return verdict;
  };
  return self;
}

/** Whether one of these (distinct, non-empty) claims and the value hold one another, by one search. */
function searchOf(liveClaims: string[]): (lower: string) => boolean {
  const joined = liveClaims.join(APART);
  const claimSet = new Set(liveClaims);
  const lengths = [...new Set(liveClaims.map((c) => c.length))].sort((a, b) => a - b);
  const holds = (lower: string) => {
    if (!liveClaims.length) return false;
    if (lower.includes(APART)) return liveClaims.some((c) => c.includes(lower));
    return joined.includes(lower);
  };
  const heldBy = (lower: string) => {
    for (const length of lengths) {
      if (length > lower.length) break;
      for (let at = 0; at + length <= lower.length; at++) {
        if (claimSet.has(lower.slice(at, at + length))) return true;
      }
    }
    return false;
  };
  return (lower) => holds(lower) || heldBy(lower);
}

/** Whether some claim of a live list and the value hold one another, computed afresh; for tests. */
export function heldLivePlain(live: ContextObject[], lower: string, memos: ClaimMemos): boolean {
  return live.some((object) => {
    const claim = lowerClaim(object, memos);
    return claim !== "" && related(claim, lower);
  });
}

/** heldLiveOf, for tests. */
export const heldLive = (live: ContextObject[], lower: string, memos: LiveClaimsMemos) =>
  heldLiveOf(live, memos)(lower);
