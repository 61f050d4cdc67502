import type { OmitReasonName } from "../api/schemas";
import type { Candidate, Omission } from "./types";

/**
 * Dead claims must not come back as live text by another route. A message that restates a value the
 * gates removed (superseded, disputed, out of scope, not permitted) while that value was its belief,
 * that is, before the value was superseded, or at any time for a value that was never live here, is
 * elided whole: it speaks from a dead state. Later text that quotes the value (a correction, a fact
 * citing its predecessor) keeps its other content, with the quotation masked.
 */
const DEAD_REASONS = new Set<OmitReasonName>(["superseded", "disputed", "out_of_scope", "not_permitted"]);

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

const FIGURE = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kmb]\b)?|\b\d+(?:\.\d+)?\s?%/gi;
const ASIDE = /\s*\([^()]*\)/g;

function figuresOf(text: string): string[] {
  return [...text.matchAll(FIGURE)].map((m) => m[0].toLowerCase().replace(/\s+/g, ""));
}

/** Very short values ("yes", "5") would match ordinary words; they are left to the facts gate. */
function distinctive(claim: string): boolean {
  return claim.length >= 6 && /[\s\d$%]/.test(claim);
}

export function deadClaims(
  omitted: Omission[],
  live: Candidate[],
  validFrom: Map<string, string>,
): DeadClaim[] {
  const liveClaims = live.map((c) => c.claim?.toLowerCase() ?? "").filter(Boolean);
  const claims: DeadClaim[] = [];
  for (const o of omitted) {
    const text = o.candidate.claim;
    if (!text || !DEAD_REASONS.has(o.reason) || !distinctive(text)) continue;
    const lower = text.toLowerCase();
    // A value that is still live elsewhere (restated by the current fact) is not dead.
    if (liveClaims.some((c) => c === lower)) continue;
    const successor = o.candidate.supersededBy;
    const diedAt = o.reason === "superseded" && successor ? (validFrom.get(successor) ?? null) : null;
    claims.push({ text, lower, reason: o.reason, objectId: o.candidate.objectId, diedAt, figures: [] });
  }
  claims.sort((a, b) => b.text.length - a.text.length);
  // A figure is dead only if no live claim still states it in its own words: quotations of dead
  // claims (masked anyway) and asides do not count.
  const liveFigures = new Set(
    liveClaims.flatMap((c) =>
      figuresOf(claims.reduce((rest, d) => rest.replaceAll(d.lower, " "), c).replace(ASIDE, " ")),
    ),
  );
  for (const claim of claims) claim.figures = figuresOf(claim.lower).filter((f) => !liveFigures.has(f));
  return claims;
}

/**
 * Adds the values messages themselves retired ("the original launch date was Friday March 15th")
 * as dead claims from the moment they were retired, unless a live claim still holds them.
 */
export function withRetired(
  dead: DeadClaim[],
  stated: Map<string, { ts: string; retired?: string[] }>,
  live: Candidate[],
): DeadClaim[] {
  const liveClaims = live.map((c) => c.claim?.toLowerCase() ?? "").filter(Boolean);
  const known = new Set(dead.map((d) => d.lower));
  const added: DeadClaim[] = [];
  for (const [id, { ts, retired }] of stated) {
    for (const text of retired ?? []) {
      const lower = text.toLowerCase();
      if (!distinctive(text) || known.has(lower)) continue;
      if (liveClaims.some((c) => c.includes(lower) || lower.includes(c))) continue;
      known.add(lower);
      added.push({ text, lower, reason: "superseded", objectId: id, diedAt: ts, figures: [] });
    }
  }
  return added.length ? [...dead, ...added].sort((a, b) => b.text.length - a.text.length) : dead;
}

export function restatedClaim(text: string, claims: DeadClaim[]): DeadClaim | undefined {
  const lower = text.toLowerCase();
  return claims.find((c) => lower.includes(c.lower));
}

/** A message restating a dead claim from when it was still believed, or a claim never live here. */
export function speaksFromDeadState(message: Candidate, claims: DeadClaim[]): DeadClaim | undefined {
  const lower = message.text.toLowerCase();
  return claims.find((c) => lower.includes(c.lower) && (c.diedAt === null || message.ts < c.diedAt));
}

export const MASK = "[superseded]";

/**
 * Replaces every quotation of a dead claim inside live text, and drops asides that cite one of its
 * figures: "Only 10% discount applies (25% requires 3-year contract)" once 25% was replaced speaks
 * of the replaced value in other words.
 */
export function maskClaims(text: string, claims: DeadClaim[]): string {
  let out = text;
  for (const claim of claims) {
    let index = out.toLowerCase().indexOf(claim.lower);
    while (index !== -1) {
      out = `${out.slice(0, index)}${MASK}${out.slice(index + claim.text.length)}`;
      index = out.toLowerCase().indexOf(claim.lower, index + MASK.length);
    }
  }
  const deadFigures = new Set(claims.flatMap((c) => c.figures));
  if (!deadFigures.size) return out;
  return out.replace(ASIDE, (aside) => (figuresOf(aside).some((f) => deadFigures.has(f)) ? "" : aside));
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
  current: Candidate[],
): Map<string, string> {
  const bySlot = new Map<string, Candidate>();
  for (const c of current) if (c.key && c.claim) bySlot.set(c.key, c);
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
