import type { OmitReasonName } from "../api/schemas";
import type { ContextObject, Omission } from "./context-object";
import { terms } from "./lexical";

/**
 * Dead claims must not come back as live text by another route. A message that restates a value the
 * gates removed (superseded, disputed, out of scope, not permitted) while that value was its belief,
 * that is, before the value was superseded, or at any time for a value that was never live here, is
 * elided whole: it speaks from a dead state. Later text that quotes the value (a correction, a fact
 * citing its predecessor) keeps its other content, with the quotation masked.
 */
const DEAD_REASONS = new Set<OmitReasonName>([
  "superseded",
  "overridden",
  "disputed",
  "quarantined",
  "out_of_scope",
  "not_permitted",
]);

export interface DeadClaim {
  text: string;
  lower: string;
  reason: OmitReasonName;
  objectId: string;
  /** When the claim stopped being current; null when it was never current for this caller. */
  diedAt: string | null;
  /** Its amounts and percentages that no live claim states outside an aside. */
  figures: string[];
}

/**
 * The memo a table keeps for one dead list, made on first use. Dead lists are never changed once made,
 * so whatever is worked out against one stays true for as long as the list lives.
 */
export function perList<T>(tables: WeakMap<DeadClaim[], T>, list: DeadClaim[], make: () => T): T {
  let table = tables.get(list);
  if (table === undefined) {
    table = make();
    tables.set(list, table);
  }
  return table;
}

const FIGURE = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kmb]\b)?|\b\d+(?:\.\d+)?\s?%/gi;
const ASIDE = /\s*\([^()]*\)/g;
/**
 * Every figure holds a currency sign or a percent sign, and masking or dropping asides only takes
 * characters away: text without one of those signs has no figures, before or after either. (A digit
 * alone is no sign of one: most claims carry ids and dates.)
 */
const FIGURE_PRESENT = /[$€£¥%]/;

/**
 * A text's figures, remembered per text: a new turn settles thousands of claims again, nearly all of
 * them seen last turn. Bounded, and simply emptied when full. The arrays are shared: read them only.
 */
const figureMemo = new Map<string, readonly string[]>();
const FIGURE_MEMO_LIMIT = 50_000;

export function figuresOf(text: string): readonly string[] {
  let found = figureMemo.get(text);
  if (found === undefined) {
    found = [...text.matchAll(FIGURE)].map((m) => m[0].toLowerCase().replace(/\s+/g, ""));
    if (figureMemo.size >= FIGURE_MEMO_LIMIT) figureMemo.clear();
    figureMemo.set(text, found);
  }
  return found;
}

/** Objects are never changed once made, so each one's lower-cased claim ("" without one) is kept with it. */
const lowerClaims = new WeakMap<ContextObject, string>();

function lowerClaim(o: ContextObject): string {
  let lower = lowerClaims.get(o);
  if (lower === undefined) {
    lower = o.claim?.toLowerCase() ?? "";
    lowerClaims.set(o, lower);
  }
  return lower;
}

/** Very short values ("yes", "5") would match ordinary words; they are left to the facts gate. */
function distinctive(claim: string): boolean {
  return claim.length >= 6 && /[\s\d$%]/.test(claim);
}

export function deadClaims(
  omitted: Omission[],
  live: ContextObject[],
  validFrom: Map<string, string>,
): DeadClaim[] {
  const liveClaims = new Set<string>();
  for (const c of live) {
    const lower = lowerClaim(c);
    if (lower) liveClaims.add(lower);
  }
  const claims: DeadClaim[] = [];
  for (const o of omitted) {
    const text = o.object.claim;
    if (!text || !DEAD_REASONS.has(o.reason) || !distinctive(text)) continue;
    const lower = lowerClaim(o.object);
    // A value that is still live elsewhere (restated by the current fact) is not dead.
    if (liveClaims.has(lower)) continue;
    const successor = o.object.supersededBy;
    const diedAt = o.reason === "superseded" && successor ? (validFrom.get(successor) ?? null) : null;
    claims.push({ text, lower, reason: o.reason, objectId: o.object.objectId, diedAt, figures: [] });
  }
  claims.sort((a, b) => b.text.length - a.text.length);
  // A figure is dead only if no live claim still states it in its own words: quotations of dead
  // claims (masked anyway) and asides do not count.
  // Only live claims holding a figure matter, and only the dead claims quoted inside them.
  const liveFigures = new Set<string>();
  for (const live of liveClaims) {
    if (!FIGURE_PRESENT.test(live)) continue;
    for (const figure of ownFigures(live, claims)) liveFigures.add(figure);
  }
  for (const claim of claims) claim.figures = figuresOf(claim.lower).filter((f) => !liveFigures.has(f));
  return claims;
}

/** The figures a live claim states in its own words: not inside a quoted dead claim, nor in an aside. */
function ownFigures(live: string, claims: DeadClaim[]): readonly string[] {
  let own = live;
  for (const group of groupsIn(live, claims)) own = own.replaceAll(group.lower, " ");
  return figuresOf(own.replace(ASIDE, " "));
}

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
  validFrom: Map<string, string>;
  /** The lower-cased claims of `live`. */
  liveClaims: Set<string>;
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

/** A dead claim before its figures are known; kept, so the basis's candidates compare by identity. */
type Candidate = Omit<DeadClaim, "figures">;

const byLength = (a: Candidate, b: Candidate) => b.text.length - a.text.length;

function candidatesOf(omitted: Omission[], validFrom: Map<string, string>): Candidate[] {
  const found: Candidate[] = [];
  for (const o of omitted) {
    const text = o.object.claim;
    if (!text || !DEAD_REASONS.has(o.reason) || !distinctive(text)) continue;
    const successor = o.object.supersededBy;
    const diedAt = o.reason === "superseded" && successor ? (validFrom.get(successor) ?? null) : null;
    found.push({ text, lower: lowerClaim(o.object), reason: o.reason, objectId: o.object.objectId, diedAt });
  }
  return found;
}

export function deadBasis(
  before: Omission[],
  after: Omission[],
  live: ContextObject[],
  validFrom: Map<string, string>,
): DeadBasis {
  const liveClaims = new Set<string>();
  for (const c of live) {
    const lower = lowerClaim(c);
    if (lower) liveClaims.add(lower);
  }
  const standing = (list: Omission[]) =>
    candidatesOf(list, validFrom)
      .filter((c) => !liveClaims.has(c.lower))
      .sort(byLength);
  const head = standing(before);
  const tail = standing(after);
  return {
    validFrom,
    liveClaims,
    figureClaims: [...liveClaims].filter((c) => FIGURE_PRESENT.test(c)),
    head,
    tail,
    standing: new Set([...head, ...tail].map((c) => c.lower)),
  };
}

export function deadClaimsWith(basis: DeadBasis, middle: Omission[], moreLive: ContextObject[]): DeadClaim[] {
  const extra = new Set<string>();
  for (const c of moreLive) {
    const lower = lowerClaim(c);
    if (lower && !basis.liveClaims.has(lower)) extra.add(lower);
  }
  // Standing candidates the extra live claims hold are not dead; the list depends on these and `mid`.
  const held = [...extra].filter((lower) => basis.standing.has(lower));
  const mid = candidatesOf(middle, basis.validFrom)
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
    for (const live of basis.figureClaims) for (const f of ownFiguresIn(claims, live)) standingFigures.add(f);
  }
  const liveFigures = new Set(standingFigures);
  for (const live of extra) {
    if (FIGURE_PRESENT.test(live)) for (const figure of ownFiguresIn(claims, live)) liveFigures.add(figure);
  }
  // The same claims against the same live figures have the same dead figures.
  if (reused && sameSet(last.liveFigures, liveFigures)) return claims;
  const figures = claims.map((claim) => figuresOf(claim.lower).filter((f) => !liveFigures.has(f)));
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

/** The same claim, said the same way, of the same object, dead for the same reason since the same time. */
const sameClaim = (c: Candidate, d: Candidate) =>
  c === d ||
  (c.text === d.text &&
    c.lower === d.lower &&
    c.reason === d.reason &&
    c.objectId === d.objectId &&
    c.diedAt === d.diedAt);

const sameCandidates = (a: Candidate[], b: Candidate[]) =>
  a.length === b.length && a.every((c, i) => sameClaim(c, b[i] as Candidate));

/** Whether two dead lists hold the same claims, in the same order. */
export const sameClaims = (a: DeadClaim[], b: DeadClaim[]) =>
  a === b ||
  (a.length === b.length &&
    a.every((c, i) => {
      const d = b[i] as DeadClaim;
      return c === d || (sameClaim(c, d) && sameStrings(c.figures, d.figures));
    }));

const sameStrings = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/** ownFigures per claim list and live claim: a list that carries over keeps what its live claims state. */
const ownFigureMemo = new WeakMap<DeadClaim[], Map<string, readonly string[]>>();

function ownFiguresIn(claims: DeadClaim[], live: string): readonly string[] {
  const memo = perList(ownFigureMemo, claims, () => new Map());
  let found = memo.get(live);
  if (found === undefined) {
    found = ownFigures(live, claims);
    memo.set(live, found);
  }
  return found;
}

/**
 * Every candidate is checked against every dead claim, which is quadratic in thread size. Claims are
 * distinctive, so at least GRAM characters long: each is indexed by the GRAM characters of it that
 * fewest other claims share, so a text is scanned once and each position looks up only the few claims
 * that could occur there. Claims often open alike ("the budget is ..."), hence not simply their first
 * characters.
 */
const GRAM = 4;

/** Claims with the same text are checked once; threads repeat themselves. */
interface ClaimGroup {
  lower: string;
  /** Where the indexed characters sit inside the claim. */
  offset: number;
  /** Positions in the claim list, ascending. */
  positions: number[];
}

interface ClaimIndex {
  byGram: Map<number, ClaimGroup[]>;
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

// Keyed by the list itself: deadClaims builds each list once and the compile reuses it for every candidate.
const indexes = new WeakMap<DeadClaim[], ClaimIndex>();

function indexOf(claims: DeadClaim[]): ClaimIndex {
  const cached = indexes.get(claims);
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
  const index: ClaimIndex = { byGram: new Map(), unindexed: [], bracketed: [] };
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
  indexes.set(claims, index);
  return index;
}

/** The groups of claims that occur in `lower`. */
function groupsIn(lower: string, claims: DeadClaim[]): ClaimGroup[] {
  const { byGram, unindexed } = indexOf(claims);
  const found: ClaimGroup[] = unindexed.filter((group) => lower.includes(group.lower));
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
      if (start >= 0 && lower.startsWith(group.lower, start) && !found.includes(group)) found.push(group);
    }
  }
  return found;
}

/** The first claim in list order that occurs in the text and is accepted, as Array.find would give. */
function firstIn(lower: string, claims: DeadClaim[], accept: (claim: DeadClaim) => boolean) {
  let best = Number.POSITIVE_INFINITY;
  for (const group of groupsIn(lower, claims)) {
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
): DeadClaim[] {
  const heldLive = heldLiveOf(live);
  // Copied, as values join it below; the copy of a remembered set costs less than building it.
  const known = new Set(knownOf(dead));
  const added: DeadClaim[] = [];
  for (const [id, { ts, retired }] of stated) {
    for (const text of retired ?? []) {
      const lower = text.toLowerCase();
      if (!distinctive(text) || known.has(lower)) continue;
      if (heldLive(lower)) continue;
      known.add(lower);
      added.push({ text, lower, reason: "superseded", objectId: id, diedAt: ts, figures: [] });
    }
  }
  if (!added.length) return dead;
  // The merged list is a function of `dead` and of `added` in order: the same pair gets the same
  // list back, so the per-list index and masked texts below carry over from compile to compile.
  const merged = perList(mergedLists, dead, () => new Map());
  const key = added.map((a) => `${a.objectId}\u0000${a.diedAt}\u0000${a.text}`).join("\u0001");
  let list = merged.get(key);
  if (!list) {
    list = [...dead, ...added].sort((a, b) => b.text.length - a.text.length);
    if (merged.size >= MERGED_LIMIT) merged.clear();
    merged.set(key, list);
  }
  return list;
}

const knownTexts = new WeakMap<DeadClaim[], Set<string>>();

function knownOf(dead: DeadClaim[]): Set<string> {
  const known = perList(knownTexts, dead, () => new Set(dead.map((d) => d.lower)));
  return known;
}

const mergedLists = new WeakMap<DeadClaim[], Map<string, DeadClaim[]>>();
const MERGED_LIMIT = 64;

const liveVerdicts = new WeakMap<ContextObject[], LiveClaims>();
/** Between joined claims: a value holding it is checked claim by claim instead. */
const APART = "\u0000";
const VERDICT_LIMIT = 50_000;
/** Past this many claims changed, a new live list checks values afresh rather than from the last one. */
const CARRY_LIMIT = 64;

/** A live list's distinct claims and the verdicts given on values against them. */
interface LiveClaims {
  claims: Set<string>;
  verdicts: Map<string, boolean>;
  held: (lower: string) => boolean;
  /** The list this one followed, and the claims it added and dropped, when few changed. */
  base?: { parent: LiveClaims; added: string[]; dropped: string[] };
}

/** How many lists back a value's verdict is looked for (retrieval asks about other values per query). */
const CARRY_DEPTH = 8;

/** The live list whose claims were gathered last: a new turn's list mostly holds the same claims. */
let lastLive: LiveClaims | undefined;

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
function heldLiveOf(live: ContextObject[]): (lower: string) => boolean {
  let found = liveVerdicts.get(live);
  if (!found) {
    found = liveClaimsOf(live, lastLive);
    liveVerdicts.set(live, found);
    lastLive = found;
  }
  return found.held;
}

function liveClaimsOf(live: ContextObject[], previous: LiveClaims | undefined): LiveClaims {
  const claims = new Set<string>();
  for (const object of live) {
    const lower = lowerClaim(object);
    if (lower) claims.add(lower);
  }
  const self: LiveClaims = { claims, verdicts: new Map(), held: () => false };
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
      if (self.verdicts.size >= VERDICT_LIMIT) self.verdicts.clear();
      self.verdicts.set(lower, verdict);
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
export function heldLivePlain(live: ContextObject[], lower: string): boolean {
  return live.some((object) => {
    const claim = lowerClaim(object);
    return claim !== "" && related(claim, lower);
  });
}

/** heldLiveOf, for tests. */
export const heldLive = (live: ContextObject[], lower: string) => heldLiveOf(live)(lower);

export function restatedClaim(text: string, claims: DeadClaim[]): DeadClaim | undefined {
  const verdicts = perList(restatedVerdicts, claims, () => new Map());
  let verdict = verdicts.get(text);
  if (verdict === undefined) {
    verdict = firstAfter(claims, text, anyClaim, (before) => before.restated.get(text)) ?? null;
    if (verdicts.size >= VERDICT_LIMIT) verdicts.clear();
    verdicts.set(text, verdict);
  }
  return verdict ?? undefined;
}

const anyClaim = () => true;

/**
 * The first claim of a list that a text quotes, per list: by text for restatedClaim, by object for the
 * claims an object quotes from while they were believed (speaksFromDeadState; an object's text and time
 * never change).
 */
const restatedVerdicts = new WeakMap<DeadClaim[], Map<string, DeadClaim | null>>();
const quotedVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>();

function quotedBelieved(message: ContextObject, claims: DeadClaim[]): DeadClaim | undefined {
  const verdicts = perList(quotedVerdicts, claims, () => new WeakMap());
  let verdict = verdicts.get(message);
  if (verdict === undefined) {
    const believed = (c: DeadClaim) => c.diedAt === null || message.ts < c.diedAt;
    verdict = firstAfter(claims, message.text, believed, (before) => before.quoted.get(message)) ?? null;
    verdicts.set(message, verdict);
  }
  return verdict ?? undefined;
}

/**
 * A dead list that follows another: the next settlement's, when a written fact or a new turn changed
 * a few of its claims. Which claim a text quotes first depends only on each claim's text and when it
 * died (firstIn), so a claim with the same two, in the same order among the claims both lists share,
 * answers the same: what a text quoted from the list before carries over, weighed against the few
 * claims added, and a text not seen before is looked up in the list before's index when it has one.
 * Either way, no verdict is worked out again and no index is built for a list that hardly changed.
 */
interface Succession {
  /** The list before, and the verdicts found against it. */
  before: DeadClaim[];
  quoted: WeakMap<ContextObject, DeadClaim | null>;
  restated: Map<string, DeadClaim | null>;
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
  masked?: { texts: Map<string, string>; changed: string[] };
}

const successions = new WeakMap<DeadClaim[], Succession>();
const noted = new WeakSet<DeadClaim[]>();
/** Past this many added claims a list is looked up on its own. */
const SUCCESSION_LIMIT = 64;

/**
 * Notes that `next` follows `before` (settlements of one thread, in turn). Claims pair off in order
 * by their text and the time they died; those of `next` left unpaired are added. Only the latest
 * step is kept: the list before forgets its own predecessor, so no chain of lists stays alive.
 */
export function followsClaims(next: DeadClaim[], before: DeadClaim[]): void {
  // A list seen before keeps what was found against it (lists come back: withRetired's merged list
  // per query, a settlement handed back whole), so only a list new to this step follows another.
  if (next === before || noted.has(next)) return;
  noted.add(next);
  noted.add(before);
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
  const quoted = perList(quotedVerdicts, before, () => new WeakMap());
  const restated = perList(restatedVerdicts, before, () => new Map());
  const changed = [...added.map((a) => a.claim), ...dropped];
  const maskable =
    [...kept].every(([was, is]) => was.text === is.text) &&
    changed.every((c) => !/[[\]]/.test(c.lower)) &&
    sameSet(deadFiguresOf(before), deadFiguresOf(next));
  let texts = maskedTexts.get(before);
  if (maskable && !texts) {
    texts = new Map();
    maskedTexts.set(before, texts);
  }
  successions.delete(before);
  successions.set(next, {
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
function firstAfter(
  claims: DeadClaim[],
  text: string,
  accept: (claim: DeadClaim) => boolean,
  known: (before: Succession) => DeadClaim | null | undefined,
): DeadClaim | undefined {
  const succession = successions.get(claims);
  if (!succession) return firstIn(text.toLowerCase(), claims, accept);
  const lower = text.toLowerCase();
  let best = known(succession);
  if (best === undefined) {
    // A text not seen before: the list before's index, if built, serves for the claims kept.
    if (!indexes.has(succession.before)) return firstIn(lower, claims, accept);
    best = firstIn(lower, succession.before, (c) => succession.kept.has(c) && accept(c)) ?? null;
  }
  let here: DeadClaim | undefined;
  if (best) {
    here = succession.kept.get(best);
    // The claim quoted before is gone: what comes after it was never looked at.
    if (!here) return firstIn(lower, claims, accept);
  }
  const until = here ? (succession.at.get(here) as number) : Number.POSITIVE_INFINITY;
  for (const { claim, at } of succession.added) {
    if (at >= until) break;
    if (lower.includes(claim.lower) && accept(claim)) return claim;
  }
  return here;
}

/**
 * A message restating a dead claim from when it was still believed, or a claim never live here. A
 * replaced claim is also spoken when the message states one of its dead figures before it was replaced:
 * "They want a 25% discount" words the replaced "25% discount approved" differently, but the 25% no
 * live claim states is the same belief.
 */
export function speaksFromDeadState(message: ContextObject, claims: DeadClaim[]): DeadClaim | undefined {
  const quoted = quotedBelieved(message, claims);
  if (quoted || !FIGURE_PRESENT.test(message.text)) return quoted;
  const figures = figuresOf(message.text);
  // Only before a known replacement: later text citing the old figure is a correction, masked instead.
  const believed = (c: DeadClaim) => c.diedAt !== null && message.ts < c.diedAt;
  const byFigure = replacedFiguresOf(claims);
  for (const figure of byFigure.size ? figures : []) {
    const claim = byFigure.get(figure)?.find(believed);
    if (claim) return claim;
  }
  const reworded = rewordableOf(claims);
  let said: Set<string> | undefined;
  for (const figure of reworded.size ? figures : []) {
    for (const { claim, claimTerms } of reworded.get(figure) ?? []) {
      if (!believed(claim)) continue;
      said ??= new Set(terms(message.text));
      if (claimTerms.every((t) => saysTerm(said as Set<string>, t))) return claim;
    }
  }
  return undefined;
}

const REPLACED = new Set<OmitReasonName>(["superseded", "overridden"]);
const replacedFigures = new WeakMap<DeadClaim[], Map<string, DeadClaim[]>>();

/** Dead figures of replaced claims, by figure, gathered once per claim list. */
function replacedFiguresOf(claims: DeadClaim[]): Map<string, DeadClaim[]> {
  let found = replacedFigures.get(claims);
  if (!found) {
    found = new Map();
    for (const claim of claims) {
      if (!REPLACED.has(claim.reason)) continue;
      for (const figure of claim.figures) found.set(figure, [...(found.get(figure) ?? []), claim]);
    }
    replacedFigures.set(claims, found);
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
const rewordables = new WeakMap<DeadClaim[], Map<string, { claim: DeadClaim; claimTerms: string[] }[]>>();

/** Replaced claims of enough terms, by each figure they state, dead or still live elsewhere. */
function rewordableOf(claims: DeadClaim[]): Map<string, { claim: DeadClaim; claimTerms: string[] }[]> {
  return perList(rewordables, claims, () => {
    const found = new Map<string, { claim: DeadClaim; claimTerms: string[] }[]>();
    for (const claim of claims) {
      if (!REPLACED.has(claim.reason) || claim.diedAt === null || !FIGURE_PRESENT.test(claim.lower)) continue;
      const claimTerms = [...new Set(terms(claim.text))];
      if (claimTerms.length < REWORDED_MIN_TERMS) continue;
      for (const figure of new Set(figuresOf(claim.lower))) {
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
function saysTerm(said: Set<string>, term: string): boolean {
  if (said.has(term)) return true;
  if (term.length < 5) return false;
  for (const other of said) {
    if (other.length >= 5 && (other.startsWith(term) || term.startsWith(other))) return true;
  }
  return false;
}

export const MASK = "[superseded]";

/**
 * Replaces every quotation of a dead claim inside live text, and drops asides that cite one of its
 * figures: "Only 10% discount applies (25% requires 3-year contract)" once 25% was replaced speaks
 * of the replaced value in other words.
 */
export function maskClaims(text: string, claims: DeadClaim[]): string {
  const masked = perList(maskedTexts, claims, () => new Map());
  let out = masked.get(text);
  if (out === undefined) {
    out = maskedBefore(text, claims) ?? maskWith(text, claims);
    if (masked.size >= MASKED_LIMIT) masked.clear();
    masked.set(text, out);
  }
  return out;
}

/**
 * Masked texts by claim list: packing masks every detail level of every candidate it tries, and a warm
 * thread's settlement, dead claims included, is reused between compiles (src/compiler/compile-cache.ts),
 * so the same texts come back against the same list.
 */
const maskedTexts = new WeakMap<DeadClaim[], Map<string, string>>();
const MASKED_LIMIT = 50_000;

function maskWith(text: string, claims: DeadClaim[]): string {
  // Only claims present in the text, or ones that could straddle an inserted mask (they would contain
  // a bracket; the mask alone holds no space or digit, so no distinctive claim fits inside it). Masking
  // with a claim whose text was masked already changes nothing, so each text is applied once.
  const present = [
    ...groupsIn(text.toLowerCase(), claims).map((g) => g.positions[0] ?? 0),
    ...indexOf(claims).bracketed,
  ];
  let out = text;
  for (const position of present.sort((a, b) => a - b)) {
    const claim = claims[position];
    if (!claim) continue;
    let index = out.toLowerCase().indexOf(claim.lower);
    while (index !== -1) {
      out = `${out.slice(0, index)}${MASK}${out.slice(index + claim.text.length)}`;
      index = out.toLowerCase().indexOf(claim.lower, index + MASK.length);
    }
  }
  const deadFigures = deadFiguresOf(claims);
  if (!deadFigures.size) return out;
  return out.replace(ASIDE, (aside) => (figuresOf(aside).some((f) => deadFigures.has(f)) ? "" : aside));
}

/** The masked text from the list `claims` follows, when it carries over (see Succession). */
function maskedBefore(text: string, claims: DeadClaim[]): string | undefined {
  const masked = successions.get(claims)?.masked;
  const before = masked?.texts.get(text);
  if (before === undefined || !masked) return undefined;
  if (masked.changed.length) {
    const lower = text.toLowerCase();
    if (masked.changed.some((c) => lower.includes(c))) return undefined;
  }
  return before;
}

const figureSets = new WeakMap<DeadClaim[], Set<string>>();

/** The dead figures of a claim list, gathered once per list: maskClaims runs for every compiled line. */
function deadFiguresOf(claims: DeadClaim[]): Set<string> {
  const found = perList(figureSets, claims, () => new Set(claims.flatMap((c) => c.figures)));
  return found;
}

/** Whether a masked message still says something beyond its timestamp and speaker. */
export function worthKeeping(maskedLine: string): boolean {
  const body = maskedLine.replace(/^\[[^\]]*\]\s*[^:]*:\s*/, "").replaceAll(MASK, " ");
  return (body.match(/[A-Za-z0-9$%]+/g) ?? []).length >= 4;
}

const normalizeValue = (value: string) => value.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Messages that stated a slot value which a later fact has since replaced. They speak from a dead
 * state even when they word the old value differently from the stored fact ("Approved the $100,000
 * budget" against "$100,000 (Manager approved)"), because extraction tied them to the slot.
 */
export function outdatedMessages(
  stated: Map<string, { ts: string; claims: { key: string; value: string }[] }>,
  current: ContextObject[],
): Map<string, string> {
  const bySlot = slotsOf(current);
  const outdated = new Map<string, string>();
  for (const [id, { ts, claims }] of stated) {
    for (const claim of claims) {
      const now = bySlot.get(claim.key);
      if (!now?.claim || !now.validFrom || now.validFrom <= ts) continue;
      const was = normalizeValue(claim.value);
      const is = normalizeValue(now.claim);
      if (is === was || is.includes(was)) continue;
      outdated.set(id, now.objectId);
      break;
    }
  }
  return outdated;
}

const slotIndexes = new WeakMap<ContextObject[], Map<string, ContextObject>>();

/** The last object per slot key; kept per list, as a warm thread passes the same settled facts each time. */
function slotsOf(current: ContextObject[]): Map<string, ContextObject> {
  let bySlot = slotIndexes.get(current);
  if (!bySlot) {
    bySlot = new Map();
    for (const c of current) if (c.key && c.claim) bySlot.set(c.key, c);
    slotIndexes.set(current, bySlot);
  }
  return bySlot;
}

/**
 * The last dead list handed out, handed back while an equal one comes in: verdicts and masked texts are
 * kept per list, so an equal list keeps them, and a list that differs follows the last (followsClaims).
 */
export class DeadListKeeper {
  private last?: DeadClaim[];

  same(dead: DeadClaim[]): DeadClaim[] {
    const last = this.last;
    if (last && sameClaims(last, dead)) return last;
    if (last) followsClaims(dead, last);
    this.last = dead;
    return dead;
  }
}
