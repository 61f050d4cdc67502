import type { ContextObject, Omission } from "../context-object";
import type { LeadingRun } from "../list-edits";
import {
  type Candidate,
  type ClaimMemos,
  DEAD_REASONS,
  type DeadClaim,
  distinctive,
  lowerClaim,
  sameCandidates,
  sameSet,
  sameStrings,
  spokenInOf,
  stillHolds,
  type ValidFrom,
} from "./dead-claim";
import { type DeadClaimsMemos, ownFiguresIn } from "./dead-claims";
import { FIGURE_PRESENT, figuresOf } from "./figures";

/**
 * deadClaims in two parts, for a settlement whose omissions and live objects mostly stay while a few
 * in the middle change (pass 4: items between the facts' omissions and quarantines; a new turn adds
 * items, not facts). `deadBasis(before, after, live, validFrom)` does the work of the standing part
 * once; then `deadClaimsWith(basis, middle, moreLive)` gives exactly
 * `deadClaims([...before, ...middle, ...after], [...live, ...moreLive], validFrom)`, and hands back the
 * very list it gave last time when that list holds the same claims, so memos kept per list (the claim
 * index, masked texts, message verdicts) carry over.
 */
export interface DeadBasis {
  validFrom: ValidFrom;
  /** The lower-cased claims of `live`. */
  liveClaims: { has(claim: string): boolean };
  /** Those that could state a figure. */
  figureClaims: string[];
  /** Candidates of `before` and `after` no live claim holds, each stably sorted as deadClaims sorts. */
  head: Candidate[];
  tail: Candidate[];
  /** The lower-cased claims of head and tail. */
  standing: Set<string>;
  /** The last list given, with what it was made from. */
  last?: {
    held: string[];
    mid: Candidate[];
    claims: DeadClaim[];
    /** What `figureClaims` state in their own words against `claims`. */
    standingFigures: Set<string>;
    liveFigures: Set<string>;
  };
}

const byLength = (a: Candidate, b: Candidate) => b.text.length - a.text.length;

function candidatesOf(omitted: Omission[], validFrom: ValidFrom, memos: ClaimMemos): Candidate[] {
  const found: Candidate[] = [];
  for (const o of omitted) {
    const text = o.object.claim;
    if (!text || !DEAD_REASONS.has(o.reason) || !distinctive(text)) continue;
    if (stillHolds(o, validFrom, memos)) continue;
    const successor = o.object.supersededBy;
    const diedAt = o.reason === "superseded" && successor ? (validFrom.get(successor) ?? null) : null;
    found.push({
      text,
      lower: lowerClaim(o.object, memos),
      reason: o.reason,
      objectId: o.object.objectId,
      diedAt,
      ...spokenInOf(o),
    });
  }
  return found;
}

export function deadBasis(
  before: Omission[],
  after: Omission[],
  live: ContextObject[],
  validFrom: ValidFrom,
  memos: DeadBasisMemos,
): DeadBasis {
  // The run of held facts the live list begins with is read once (memos.liveRuns); each list after
  // reads its own objects against it.
  const run = memos.liveRuns.of(live, (objects) => liveClaimsOf(objects, 0, memos));
  const own = liveClaimsOf(live, run?.length ?? 0, memos, run?.value);
  const liveClaims = run
    ? { has: (claim: string) => run.value.claims.has(claim) || own.claims.has(claim) }
    : own.claims;
  const standing = (list: Omission[]) =>
    candidatesOf(list, validFrom, memos)
      .filter((c) => !liveClaims.has(c.lower))
      .sort(byLength);
  const head = standing(before);
  const tail = standing(after);
  return {
    validFrom,
    liveClaims,
    figureClaims: run ? [...run.value.figureClaims, ...own.figureClaims] : own.figureClaims,
    head,
    tail,
    standing: new Set([...head, ...tail].map((c) => c.lower)),
  };
}

/** The distinct lower-cased claims of some live objects, in order, and those that could state a figure. */
export interface LiveClaimTexts {
  claims: Set<string>;
  figureClaims: string[];
}

/** The memo tables deadBasis reads. */
export interface DeadBasisMemos extends DeadClaimsMemos {
  /** The claims of the run of objects deadBasis's live lists begin with. */
  liveRuns: LeadingRun<ContextObject, LiveClaimTexts>;
}

/** The claims of `live` from `from` on, less those `before` (its objects before `from`) holds. */
function liveClaimsOf(
  live: readonly ContextObject[],
  from: number,
  memos: ClaimMemos,
  before?: LiveClaimTexts,
): LiveClaimTexts {
  const found: LiveClaimTexts = { claims: new Set(), figureClaims: [] };
  for (let i = from; i < live.length; i++) {
    const lower = lowerClaim(live[i] as ContextObject, memos);
    if (!lower || before?.claims.has(lower) || found.claims.has(lower)) continue;
    found.claims.add(lower);
    if (FIGURE_PRESENT.test(lower)) found.figureClaims.push(lower);
  }
  return found;
}

export function deadClaimsWith(
  basis: DeadBasis,
  middle: Omission[],
  moreLive: ContextObject[],
  memos: DeadClaimsMemos,
): DeadClaim[] {
  const extra = new Set<string>();
  for (const c of moreLive) {
    const lower = lowerClaim(c, memos);
    if (lower && !basis.liveClaims.has(lower)) extra.add(lower);
  }
  // Standing candidates the extra live claims hold are not dead; the list depends on these and `mid`.
  const held = [...extra].filter((lower) => basis.standing.has(lower));
  const mid = candidatesOf(middle, basis.validFrom, memos)
    .filter((c) => !basis.liveClaims.has(c.lower) && !extra.has(c.lower))
    .sort(byLength);
  const last = basis.last;
  const reused = last !== undefined && sameStrings(last.held, held) && sameCandidates(last.mid, mid);
  let claims: DeadClaim[];
  let standingFigures: Set<string>;
  if (reused) {
    claims = last.claims;
    standingFigures = last.standingFigures;
  } else {
    const open = (list: Candidate[]) => (held.length ? list.filter((c) => !extra.has(c.lower)) : list);
    // The stable sort of the whole run: longer first, and among equals, the order of the run.
    claims = mergeByLength([open(basis.head), mid, open(basis.tail)]).map((c) => ({ ...c, figures: [] }));
    standingFigures = new Set();
    for (const live of basis.figureClaims) {
      for (const f of ownFiguresIn(claims, live, memos)) standingFigures.add(f);
    }
  }
  const liveFigures = new Set(standingFigures);
  for (const live of extra) {
    if (FIGURE_PRESENT.test(live))
      for (const figure of ownFiguresIn(claims, live, memos)) liveFigures.add(figure);
  }
  // The same claims against the same live figures have the same dead figures.
  if (reused && sameSet(last.liveFigures, liveFigures)) return claims;
  const figures = claims.map((claim) => figuresOf(claim.lower, memos).filter((f) => !liveFigures.has(f)));
  if (reused) {
    if (claims.every((claim, i) => sameStrings(claim.figures, figures[i] as string[]))) {
      basis.last = { ...last, liveFigures };
      return claims;
    }
    // A list handed out is never changed: new figures make a new list.
    claims = claims.map((claim, i): DeadClaim => ({ ...claim, figures: figures[i] as string[] }));
  } else {
    for (const [i, claim] of claims.entries()) claim.figures = figures[i] as string[];
  }
  basis.last = { held, mid, claims, standingFigures, liveFigures };
  return claims;
}

/** Merges runs each sorted longest first; among claims of equal length, earlier runs come first. */
function mergeByLength(runs: Candidate[][]): Candidate[] {
  const out: Candidate[] = [];
  const at = runs.map(() => 0);
  for (;;) {
    let pick = -1;
    for (let r = 0; r < runs.length; r++) {
      const next = runs[r]?.[at[r] as number];
      if (!next) continue;
      const best = pick === -1 ? undefined : runs[pick]?.[at[pick] as number];
      if (!best || next.text.length > best.text.length) pick = r;
    }
    if (pick === -1) return out;
    out.push(runs[pick]?.[at[pick] as number] as Candidate);
    at[pick] = (at[pick] as number) + 1;
  }
}
