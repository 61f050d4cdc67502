import type { OmitReasonName } from "../../domain/omissions";
import { perList } from "../cache/memo-tables";
import { terms } from "../lexical";
import type { DeadClaim } from "./dead-claim";
import { FIGURE_PRESENT, type FigureMemos, figuresOf } from "./figures";

/** A replaced claim that may be restated in other words, with its terms. */
export interface Rewordable {
  claim: DeadClaim;
  claimTerms: string[];
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface RewordedMemos extends FigureMemos {
  /** Dead figures of replaced claims, by figure, per claim list. */
  replacedFigures: WeakMap<DeadClaim[], Map<string, DeadClaim[]>>;
  /** Rewordable claims by figure, per claim list. */
  rewordables: WeakMap<DeadClaim[], Map<string, Rewordable[]>>;
}

export const REPLACED = new Set<OmitReasonName>(["superseded", "overridden"]);

/** Dead figures of replaced claims, by figure, gathered once per claim list. */
export function replacedFiguresOf(claims: DeadClaim[], memos: RewordedMemos): Map<string, DeadClaim[]> {
  let found = memos.replacedFigures.get(claims);
  if (!found) {
    found = new Map();
    for (const claim of claims) {
      if (!REPLACED.has(claim.reason)) continue;
      for (const figure of claim.figures) found.set(figure, [...(found.get(figure) ?? []), claim]);
    }
    memos.replacedFigures.set(claims, found);
  }
  return found;
}

/**
 * A replaced claim restated in other words keeps its figure even when a live claim states that figure
 * too: "They want a 15% discount. I got VP approval." on the Umbrella Corp deal, before the discount was
 * revoked, says "15% discount approved for Umbrella Corp" although the policy "Max 15% discount without
 * VP approval" still stands. The figure alone cannot tell the two apart, so the message must also say
 * every other term of the replaced claim; claims of fewer terms than this are left to quotation.
 */
const REWORDED_MIN_TERMS = 3;

/** Replaced claims of enough terms, by each figure they state, dead or still live elsewhere. */
export function rewordableOf(claims: DeadClaim[], memos: RewordedMemos): Map<string, Rewordable[]> {
  return perList(memos.rewordables, claims, () => {
    const found = new Map<string, Rewordable[]>();
    for (const claim of claims) {
      if (!REPLACED.has(claim.reason) || claim.diedAt === null || !FIGURE_PRESENT.test(claim.lower)) continue;
      const claimTerms = [...new Set(terms(claim.text))];
      if (claimTerms.length < REWORDED_MIN_TERMS) continue;
      for (const figure of new Set(figuresOf(claim.lower, memos))) {
        found.set(figure, [...(found.get(figure) ?? []), { claim, claimTerms }]);
      }
    }
    return found;
  });
}

/**
 * Whether a text's terms hold a term, or another inflection of it: terms fold only common suffixes, so
 * "approv" (approved) and "approval" share a stem; both must be long enough that a prefix is a stem.
 */
export function saysTerm(said: Set<string>, term: string): boolean {
  if (said.has(term)) return true;
  if (term.length < 5) return false;
  for (const other of said) {
    if (other.length >= 5 && (other.startsWith(term) || term.startsWith(other))) return true;
  }
  return false;
}
