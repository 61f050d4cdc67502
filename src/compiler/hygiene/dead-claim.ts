import type { OmitReasonName } from "../../domain/omissions";
import type { ContextObject, Omission } from "../context-object";

/**
 * Dead claims must not come back as live text by another route. A message that restates a value the
 * gates removed (superseded, disputed, out of scope, not permitted) while that value was its belief,
 * that is, before the value was superseded, or at any time for a value that was never live here, is
 * elided whole: it speaks from a dead state. Later text that quotes the value (a correction, a fact
 * citing its predecessor) keeps its other content, with the quotation masked.
 */
export const DEAD_REASONS = new Set<OmitReasonName>([
  "superseded",
  "overridden",
  "disputed",
  "quarantined",
  "out_of_scope",
  "not_permitted",
]);

/**
 * When each state object's claim became valid, by object id (a claim died when its successor did), and,
 * where known, the lower-cased claim of the current version its chain leads to from there (a claim the
 * current value only refines did not die).
 */
export interface ValidFrom {
  get(objectId: string): string | undefined;
  currentClaimOf?(objectId: string): string | undefined;
}

/**
 * Whether `successor` (a lower-cased claim) refines `claim` rather than replacing it: it begins with the
 * claim whole and goes on after a space or a comma ("march 3" → "march 3, 2026", "2025-03-01" →
 * "2025-03-01 14:00 utc", "redis cluster" → "redis cluster in eu-west-1"). What the old value said still
 * holds, so it is no dead claim: quoting it is no leak, and masking it would cut the current value in
 * two. A figure joined on ("v1.2.0" → "v1.2.0-beta", "10:30 utc" → "10:30 utc+2") may be another value,
 * and is not a refinement.
 */
/** Whether a superseded object's claim still holds: the current version down its chain refines it. */
export function stillHolds(o: Omission, validFrom: ValidFrom, memos: ClaimMemos): boolean {
  const successor = o.reason === "superseded" ? o.object.supersededBy : null;
  const current = successor ? validFrom.currentClaimOf?.(successor) : undefined;
  return current !== undefined && refines(current, lowerClaim(o.object, memos));
}

export function refines(successor: string, claim: string): boolean {
  if (successor.length <= claim.length || !successor.startsWith(claim)) return false;
  const rest = successor.slice(claim.length);
  return /^[\s,]/.test(rest) && /[a-z0-9]/.test(rest);
}

export interface DeadClaim {
  text: string;
  lower: string;
  reason: OmitReasonName;
  objectId: string;
  /** When the claim stopped being current; null when it was never current for this caller. */
  diedAt: string | null;
  /**
   * For a claim out of scope, the message whose own scope it was spoken in (extraction names a
   * hypothetical or draft scope `<label>@<message id>`); absent otherwise.
   */
  spokenIn?: string;
  /**
   * For a claim out of scope, when it was supposed: a message said before it cannot restate it (an
   * earlier, real statement of the same words is not the supposition).
   */
  saidAt?: string;
  /** Its amounts and percentages that no live claim states outside an aside. */
  figures: string[];
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface ClaimMemos {
  /** Objects are never changed once made, so each one's lower-cased claim ("" without one) is kept with it. */
  lowerClaims: WeakMap<ContextObject, string>;
}

export function lowerClaim(o: ContextObject, memos: ClaimMemos): string {
  let lower = memos.lowerClaims.get(o);
  if (lower === undefined) {
    lower = o.claim?.toLowerCase() ?? "";
    memos.lowerClaims.set(o, lower);
  }
  return lower;
}

/** Very short values ("yes", "5") would match ordinary words; they are left to the facts gate. */
export function distinctive(claim: string): boolean {
  return claim.length >= 6 && /[\s\d$%]/.test(claim);
}

/** A dead claim before its figures are known; kept, so the basis's candidates compare by identity. */
export type Candidate = Omit<DeadClaim, "figures">;

/** The same claim, said the same way, of the same object, dead for the same reason since the same time. */
export const sameClaim = (c: Candidate, d: Candidate) =>
  c === d ||
  (c.text === d.text &&
    c.lower === d.lower &&
    c.reason === d.reason &&
    c.objectId === d.objectId &&
    c.diedAt === d.diedAt &&
    c.spokenIn === d.spokenIn &&
    c.saidAt === d.saidAt);

/** Where an omitted object's claim was spoken, when a scope of one message hid it (DeadClaim.spokenIn). */
export function spokenInOf(o: Omission): Pick<DeadClaim, "spokenIn" | "saidAt"> {
  const { scope, scopeId, ts } = o.object;
  if (o.reason !== "out_of_scope" || (scope !== "hypothetical" && scope !== "draft") || !scopeId) return {};
  const spokenIn = scopeId.slice(scopeId.lastIndexOf("@") + 1);
  return scopeId.includes("@") && spokenIn ? { spokenIn, saidAt: ts } : {};
}

export const sameCandidates = (a: Candidate[], b: Candidate[]) =>
  a.length === b.length && a.every((c, i) => sameClaim(c, b[i] as Candidate));

/** Whether two dead lists hold the same claims, in the same order. */
export const sameClaims = (a: DeadClaim[], b: DeadClaim[]) =>
  a === b ||
  (a.length === b.length &&
    a.every((c, i) => {
      const d = b[i] as DeadClaim;
      return c === d || (sameClaim(c, d) && sameStrings(c.figures, d.figures));
    }));

export const sameStrings = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
