import type { DeadClaim } from "./dead-claim";

/**
 * Every candidate is checked against every dead claim, which is quadratic in thread size. Claims are
 * distinctive, so at least GRAM characters long: each is indexed by the GRAM characters of it that
 * fewest other claims share, so a text is scanned once and each position looks up only the few claims
 * that could occur there. Claims often open alike ("the budget is ..."), hence not simply their first
 * characters.
 */
const GRAM = 4;

/** Claims with the same text are checked once; threads repeat themselves. */
export interface ClaimGroup {
  lower: string;
  /** Where the indexed characters sit inside the claim. */
  offset: number;
  /** Positions in the claim list, ascending. */
  positions: number[];
}

export interface ClaimIndex {
  byGram: Map<number, ClaimGroup[]>;
  /** The groups of byGram, gram by gram in its order, each gram's in list order. */
  indexed: ClaimGroup[];
  /** Claims too short to index (deadClaims never makes them, but these functions accept any list). */
  unindexed: ClaimGroup[];
  /** Claims holding a bracket, which could straddle a mask inserted by maskClaims. */
  bracketed: number[];
}

/** GRAM characters folded to seven bits each: a small integer key; a fold collision only costs a check. */
function gramAt(text: string, at: number): number {
  let gram = 0;
  for (let i = 0; i < GRAM; i++) gram = (gram << 7) | (text.charCodeAt(at + i) & 0x7f);
  return gram;
}

/**
 * Where `claim` occurs in `lower` at or after `from` as a whole figure, or -1: never cut from a longer
 * one. "stage 2" does not occur in "stage 29" or "stage 2b", "port 80" not in "port 8080" or
 * "port 80/tcp", "$2,500" not in "$2,500,000" or "$2,500/month", "2025-06" not in "2025-06-15", "1.2" not
 * in "1.2.5", "3.5%" not in "13.5%". A dead claim found inside a longer figure had masked the current
 * value itself ("stage 29" compiled as "[superseded]9"). Words are left as they are: a replaced "Redis
 * cluster" still occurs in "Redis clusters".
 */
export function claimAt(lower: string, claim: string, from = 0): number {
  let at = lower.indexOf(claim, from);
  while (at !== -1 && !wholeFigures(lower, claim, at)) at = lower.indexOf(claim, at + 1);
  return at;
}

/** Whether the claim at `at` neither ends nor starts inside a figure of the text. */
export function wholeFigures(lower: string, claim: string, at: number): boolean {
  return (
    !continuesFigure(claim.charCodeAt(claim.length - 1), lower, at + claim.length, 1) &&
    !continuesFigure(claim.charCodeAt(0), lower, at - 1, -1)
  );
}

/**
 * Whether the text at `i` carries on, in the direction `step`, a figure whose edge character is `edge`:
 * after a digit (or a percent sign), a letter or digit does ("3rd", "2b", "29"); after any letter or
 * digit, a joining mark before a digit does ("-15", ":8080", ",000", "+2"); after a digit, a joining
 * mark before a letter does ("-beta", "/month").
 */
function continuesFigure(edge: number, lower: string, i: number, step: 1 | -1): boolean {
  const figureEdge = isDigit(edge) || (step === 1 && edge === 0x25);
  const c = lower.charCodeAt(i);
  if (figureEdge && isAlphanumeric(c)) return true;
  if (!JOINING.has(c) || !(figureEdge || isAlphanumeric(edge))) return false;
  const beyond = lower.charCodeAt(i + step);
  return isDigit(beyond) || (figureEdge && isAlphanumeric(beyond));
}

/** Marks that join the parts of one figure: "-", "/", ":", ".", ",", "+", "_". */
const JOINING = new Set([0x2d, 0x2f, 0x3a, 0x2e, 0x2c, 0x2b, 0x5f]);

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlphanumeric(c: number): boolean {
  return (
    isDigit(c) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c > 0x7f && /[\p{L}\p{N}]/u.test(String.fromCharCode(c)))
  );
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface ClaimIndexMemos {
  /** Keyed by the list itself: deadClaims builds each list once and the compile reuses it for every candidate. */
  claimIndexes: WeakMap<DeadClaim[], ClaimIndex>;
}

export function indexOf(claims: DeadClaim[], memos: ClaimIndexMemos): ClaimIndex {
  const cached = memos.claimIndexes.get(claims);
  if (cached) return cached;
  const groups = new Map<string, number[]>();
  for (const [position, claim] of claims.entries()) {
    const positions = groups.get(claim.lower);
    if (positions) positions.push(position);
    else groups.set(claim.lower, [position]);
  }
  // Only every GRAM-th window is a candidate key: it keeps building the index linear in a cheap way,
  // and any window of a claim will do, since the scan looks at every window of the text.
  const frequency = new Map<number, number>();
  for (const lower of groups.keys()) {
    for (let at = 0; at + GRAM <= lower.length; at += GRAM) {
      const gram = gramAt(lower, at);
      frequency.set(gram, (frequency.get(gram) ?? 0) + 1);
    }
  }
  const index: ClaimIndex = { byGram: new Map(), indexed: [], unindexed: [], bracketed: [] };
  for (const [lower, positions] of groups) {
    if (/[[\]]/.test(lower)) index.bracketed.push(...positions);
    if (lower.length < GRAM) {
      index.unindexed.push({ lower, offset: 0, positions });
      continue;
    }
    let offset = 0;
    for (let at = GRAM; at + GRAM <= lower.length; at += GRAM) {
      if ((frequency.get(gramAt(lower, at)) ?? 0) < (frequency.get(gramAt(lower, offset)) ?? 0)) offset = at;
    }
    const gram = gramAt(lower, offset);
    const group = { lower, offset, positions };
    const list = index.byGram.get(gram);
    if (list) list.push(group);
    else index.byGram.set(gram, [group]);
  }
  for (const list of index.byGram.values()) for (const group of list) index.indexed.push(group);
  memos.claimIndexes.set(claims, index);
  return index;
}

/**
 * Up to this many indexed groups, a text is searched for each group rather than scanned window by
 * window: a search is one native scan, a window one look-up in the index, and a thread's dead list is
 * mostly a few claims.
 */
const FEW_GROUPS = 16;

/** The groups of claims that occur in `lower`, in the order the scan meets them (scannedGroups). */
export function groupsIn(lower: string, claims: DeadClaim[], memos: ClaimIndexMemos): ClaimGroup[] {
  const index = indexOf(claims, memos);
  return index.indexed.length <= FEW_GROUPS ? searchedGroups(lower, index) : scannedGroups(lower, index);
}

/**
 * scannedGroups by searching for each group: the scan meets a group first at its first occurrence's
 * indexed characters (offset), and groups met at the same window share its gram, so they are met in
 * their list's order, which a stable sort of `indexed` by that place keeps.
 */
export function searchedGroups(lower: string, index: ClaimIndex): ClaimGroup[] {
  const found: ClaimGroup[] = index.unindexed.filter((group) => claimAt(lower, group.lower) !== -1);
  const met: { group: ClaimGroup; at: number }[] = [];
  for (const group of index.indexed) {
    const start = claimAt(lower, group.lower);
    if (start !== -1) met.push({ group, at: start + group.offset });
  }
  met.sort((a, b) => a.at - b.at);
  for (const { group } of met) found.push(group);
  return found;
}

/** The groups that occur in `lower`: those too short to index first, then the others as a scan meets them. */
export function scannedGroups(lower: string, index: ClaimIndex): ClaimGroup[] {
  const { byGram, unindexed } = index;
  const found: ClaimGroup[] = unindexed.filter((group) => claimAt(lower, group.lower) !== -1);
  if (byGram.size === 0) return found;
  // A rolling key: each step shifts one character in and the oldest out.
  const mask = 2 ** (7 * GRAM) - 1;
  let gram = lower.length >= GRAM ? gramAt(lower, 0) : 0;
  for (let at = 0; at + GRAM <= lower.length; at++) {
    if (at > 0) gram = ((gram << 7) | (lower.charCodeAt(at + GRAM - 1) & 0x7f)) & mask;
    const candidates = byGram.get(gram);
    if (!candidates) continue;
    for (const group of candidates) {
      const start = at - group.offset;
      if (
        start >= 0 &&
        lower.startsWith(group.lower, start) &&
        wholeFigures(lower, group.lower, start) &&
        !found.includes(group)
      )
        found.push(group);
    }
  }
  return found;
}

/** The first claim in list order that occurs in the text and is accepted, as Array.find would give. */
export function firstIn(
  lower: string,
  claims: DeadClaim[],
  accept: (claim: DeadClaim) => boolean,
  memos: ClaimIndexMemos,
) {
  let best = Number.POSITIVE_INFINITY;
  for (const group of groupsIn(lower, claims, memos)) {
    for (const position of group.positions) {
      if (position >= best) break;
      const claim = claims[position];
      if (claim && accept(claim)) {
        best = position;
        break;
      }
    }
  }
  return claims[best];
}
