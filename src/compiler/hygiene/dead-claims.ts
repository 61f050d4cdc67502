import { type BoundedMap, perList } from "../cache/memo-tables";
import type { ContextObject, Omission } from "../context-object";
import { type ClaimIndexMemos, groupsIn } from "./claim-index";
import {
  type ClaimMemos,
  DEAD_REASONS,
  type DeadClaim,
  distinctive,
  lowerClaim,
  spokenInOf,
  stillHolds,
  type ValidFrom,
} from "./dead-claim";
import { ASIDE, FIGURE_PRESENT, type FigureMemos, figuresOf } from "./figures";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface DeadClaimsMemos extends ClaimMemos, FigureMemos, ClaimIndexMemos {
  /** ownFigures per claim list and live claim: a list that carries over keeps what its live claims state. */
  ownFigures: WeakMap<DeadClaim[], Map<string, readonly string[]>>;
  /**
   * A live claim's figures outside its asides, by its text: what ownFigures gives whatever the claim
   * list when the claim quotes none of it, as most do. A large project's dead list changes with every
   * question, and its hundred live claims stating figures are mostly the same ones.
   */
  asideFreeFigures: BoundedMap<string, readonly string[]>;
}

/**
 * The claims of these omissions that are dead for the compile: those of a dead reason, distinctive,
 * and no live claim restates; longest first, each with the figures no live claim states on its own.
 */
export function deadClaims(
  omitted: Omission[],
  live: ContextObject[],
  validFrom: ValidFrom,
  memos: DeadClaimsMemos,
): DeadClaim[] {
  const liveClaims = new Set<string>();
  for (const c of live) {
    const lower = lowerClaim(c, memos);
    if (lower) liveClaims.add(lower);
  }
  const claims: DeadClaim[] = [];
  for (const o of omitted) {
    const text = o.object.claim;
    if (!text || !DEAD_REASONS.has(o.reason) || !distinctive(text)) continue;
    const lower = lowerClaim(o.object, memos);
    // A value that is still live elsewhere (restated by the current fact) is not dead.
    if (liveClaims.has(lower)) continue;
    if (stillHolds(o, validFrom, memos)) continue;
    const successor = o.object.supersededBy;
    const diedAt = o.reason === "superseded" && successor ? (validFrom.get(successor) ?? null) : null;
    claims.push({
      text,
      lower,
      reason: o.reason,
      objectId: o.object.objectId,
      diedAt,
      ...spokenInOf(o),
      figures: [],
    });
  }
  claims.sort((a, b) => b.text.length - a.text.length);
  // A figure is dead only if no live claim still states it in its own words: quotations of dead
  // claims (masked anyway) and asides do not count.
  // Only live claims holding a figure matter, and only the dead claims quoted inside them.
  const liveFigures = new Set<string>();
  for (const live of liveClaims) {
    if (!FIGURE_PRESENT.test(live)) continue;
    for (const figure of ownFigures(live, claims, memos)) liveFigures.add(figure);
  }
  for (const claim of claims)
    claim.figures = figuresOf(claim.lower, memos).filter((f) => !liveFigures.has(f));
  return claims;
}

/** The figures a live claim states in its own words: not inside a quoted dead claim, nor in an aside. */
function ownFigures(live: string, claims: DeadClaim[], memos: DeadClaimsMemos): readonly string[] {
  const quoted = groupsIn(live, claims, memos);
  if (quoted.length === 0) {
    let found = memos.asideFreeFigures.get(live);
    if (found === undefined) found = memos.asideFreeFigures.remember(live, asideFreeFigures(live, memos));
    return found;
  }
  let own = live;
  for (const group of quoted) own = own.replaceAll(group.lower, " ");
  return asideFreeFigures(own, memos);
}

const asideFreeFigures = (text: string, memos: FigureMemos) => figuresOf(text.replace(ASIDE, " "), memos);

/** ownFigures, remembered per claim list and live claim. */
export function ownFiguresIn(claims: DeadClaim[], live: string, memos: DeadClaimsMemos): readonly string[] {
  const memo = perList(memos.ownFigures, claims, () => new Map());
  let found = memo.get(live);
  if (found === undefined) {
    found = ownFigures(live, claims, memos);
    memo.set(live, found);
  }
  return found;
}
